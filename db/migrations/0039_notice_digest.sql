-- The daily digest of optional notices (issue 38 item 8, docs/decisions/029-oidc-and-notifications.md):
-- a person may choose, per kind that is not their work, "in the app now and by email once a day".
-- Such a notice is written as an in-app notification waiting for the digest (digest_pending); the
-- daily run sends each person one email listing them and clears the flag in the same transaction.
ALTER TABLE "notification_preferences" DROP CONSTRAINT "notification_preferences_channel_check";--> statement-breakpoint
ALTER TABLE "notification_preferences" ADD CONSTRAINT "notification_preferences_channel_check" CHECK ("notification_preferences"."channel" in ('email', 'digest', 'in_app', 'off'));--> statement-breakpoint
ALTER TABLE "notification_preferences" ADD CONSTRAINT "notification_preferences_digest_floor_check" CHECK (not ("notification_preferences"."kind" = 'step_waiting' and "notification_preferences"."channel" = 'digest'));--> statement-breakpoint
ALTER TABLE "email_messages" ADD COLUMN "digest_pending" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "email_messages_digest_idx" ON "email_messages" USING btree ("to_user_id") WHERE "email_messages"."digest_pending";
