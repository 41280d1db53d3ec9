-- Whether Part B (the implementer's form) is submitted: the workflow's stage and owner of a MOC ask it
-- for every MOC they name (IMPLEMENTER_SUBMITTED_SQL, app/models/moc/steps/shape.server.ts). Over the 10,000
-- MOCs the daily reminder claims, PostgreSQL answers it with one hashed pass over every submitted
-- Part B; without this index that pass read all of moc_forms (docs/performance.md, "Email at
-- production volume (decision 020)").
CREATE INDEX "moc_forms_implementer_submitted_idx" ON "moc_forms" USING btree ("moc_id") WHERE "moc_forms"."kind" = 'implementer' and "moc_forms"."submitted_at" is not null;
