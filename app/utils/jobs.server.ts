// App code reaches pg-boss through this module: it only ever sends jobs.
export { sendInTransaction, sendManyInTransaction } from "#jobs/boss";
export { EMAIL_QUEUE, REMINDER_QUEUE } from "#jobs/queues";
