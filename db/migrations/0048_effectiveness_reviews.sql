-- A closed MOC's effectiveness review (issue 42, docs/decisions/058-effectiveness-review.md): the
-- verifier who closes it sets the day (`due_on`); on that day the HSEQ department is asked once
-- (`notified_on`), reminded at most once a day while it is overdue (`reminded_on`, claimed by a
-- conditional update), and one of them answers it once (`result`, `comment`, `reviewed_by`,
-- `reviewed_at`: all set together, never changed again). Declared in db/schema/effectiveness.ts.
CREATE TABLE "effectiveness_reviews" (
	"moc_id" uuid PRIMARY KEY NOT NULL REFERENCES "mocs"("id") ON DELETE cascade,
	"due_on" date NOT NULL,
	"set_by" uuid NOT NULL REFERENCES "users"("id"),
	"set_at" timestamp with time zone DEFAULT now() NOT NULL,
	"result" text,
	"comment" text,
	"reviewed_by" uuid REFERENCES "users"("id"),
	"reviewed_at" timestamp with time zone,
	"notified_on" date,
	"reminded_on" date,
	CONSTRAINT "effectiveness_reviews_result_check" CHECK ("result" in ('effective', 'partly', 'not-effective')),
	CONSTRAINT "effectiveness_reviews_answered_check" CHECK (("result" is null) = ("reviewed_at" is null) and ("result" is null) = ("reviewed_by" is null)),
	CONSTRAINT "effectiveness_reviews_comment_check" CHECK ("result" is null or "result" = 'effective' or coalesce(btrim("comment"), '') <> '')
);
--> statement-breakpoint
-- The daily run and Insight read the reviews waiting by their day.
CREATE INDEX "effectiveness_reviews_waiting_idx" ON "effectiveness_reviews" ("due_on") WHERE "result" is null;
