// GET /api/getAllPcr (the archive table) answers what GET /api/allPcr answers.
export { loader, action } from "~/routes/api+/allPcr";
