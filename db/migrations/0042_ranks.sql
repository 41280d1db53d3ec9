-- Ranks on board (issue 41, docs/decisions/055-circulations.md): an admin-kept list of ranks, and a
-- person's optional rank naming one of them. A rank renamed follows to the people who hold it (on
-- update cascade); a deactivated rank stays valid for its holders but is no longer offered.
-- Declared in db/schema/ranks.ts and db/schema/users.ts.
CREATE TABLE "ranks" (
	"name" text PRIMARY KEY NOT NULL,
	"sort" integer NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ranks_name_check" CHECK (length("ranks"."name") between 1 and 60 and "ranks"."name" = btrim("ranks"."name"))
);--> statement-breakpoint
INSERT INTO "ranks" ("name", "sort") VALUES
	('Master', 10),
	('Chief Officer', 20),
	('Second Officer', 30),
	('Third Officer', 40),
	('Chief Engineer', 50),
	('Second Engineer', 60),
	('Third Engineer', 70),
	('Electro-Technical Officer', 80),
	('Bosun', 90),
	('Cook', 100);--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "rank" text REFERENCES "ranks"("name") ON UPDATE cascade;--> statement-breakpoint
CREATE INDEX "users_rank_idx" ON "users" USING btree ("rank") WHERE "rank" IS NOT NULL;
