-- The risk gate (issue 38, docs/decisions/037-risk-ranking-and-approvals.md): an admin setting
-- "ranking required before HSEQ review" (on for a new database), and the implementer's explicit
-- "no significant hazard" declaration with a reason, which ranks a MOC without impact items Low.
ALTER TABLE "risk_settings" ADD COLUMN "ranking_required" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "mocs" ADD COLUMN "no_significant_hazard" jsonb;
