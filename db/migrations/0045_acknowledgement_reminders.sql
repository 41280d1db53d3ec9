-- A person reminded on a UTC day of their overdue acknowledgements (issue 41, docs/decisions/055-circulations.md):
-- one reminder per person per day however many circulations wait for them, by the primary key.
-- Declared in db/schema/reminders.ts.
CREATE TABLE "acknowledgement_reminders" (
	"user_id" uuid NOT NULL REFERENCES "users"("id") ON DELETE cascade,
	"day" date NOT NULL,
	"circulations" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "acknowledgement_reminders_user_id_day_pk" PRIMARY KEY ("user_id", "day")
);
