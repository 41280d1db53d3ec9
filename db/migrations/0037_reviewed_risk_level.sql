-- The level HSEQ reviewed a MOC at (issue 40 item 3, docs/decisions/037-risk-ranking-and-approvals.md):
-- approvals follow the higher of it and the MOC's current level. MOCs past the HSEQ review were
-- reviewed at the level they have now (a ranking changed after the review could not be told apart).
ALTER TABLE "mocs" ADD COLUMN "reviewed_risk_level" text;--> statement-breakpoint
ALTER TABLE "mocs" ADD CONSTRAINT "mocs_reviewed_risk_level_check" CHECK ("mocs"."reviewed_risk_level" in ('low', 'medium', 'high', 'extreme'));--> statement-breakpoint
UPDATE "mocs" SET "reviewed_risk_level" = "risk_level" WHERE "status" in ('d', 'e', 'f') OR "completed";
