-- Company sign-in matched by the provider's issuer and subject (docs/decisions/052-oidc-subject-link.md).
-- A person is linked to one account at the identity provider at their first sign-in through it;
-- accounts made or used before this migration have no link, and their next sign-in makes it.
ALTER TABLE "users" ADD COLUMN "oidc_issuer" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "oidc_subject" text;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "oidc_linked_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_oidc_link_check" CHECK (("users"."oidc_issuer" is null) = ("users"."oidc_subject" is null) and ("users"."oidc_subject" is null) = ("users"."oidc_linked_at" is null));--> statement-breakpoint
CREATE UNIQUE INDEX "users_oidc_subject_key" ON "users" USING btree ("oidc_issuer","oidc_subject");--> statement-breakpoint
CREATE TABLE "oidc_conflicts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"issuer" text NOT NULL,
	"subject" text NOT NULL,
	"email" text NOT NULL,
	"name" text,
	"attempts" integer DEFAULT 1 NOT NULL,
	"first_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_at" timestamp with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp with time zone,
	"resolved_by" uuid,
	"resolution" text,
	CONSTRAINT "oidc_conflicts_resolution_check" CHECK ("oidc_conflicts"."resolution" is null or "oidc_conflicts"."resolution" in ('relinked', 'dismissed')),
	CONSTRAINT "oidc_conflicts_resolved_check" CHECK (("oidc_conflicts"."resolved_at" is null) = ("oidc_conflicts"."resolution" is null))
);
--> statement-breakpoint
ALTER TABLE "oidc_conflicts" ADD CONSTRAINT "oidc_conflicts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oidc_conflicts" ADD CONSTRAINT "oidc_conflicts_resolved_by_users_id_fk" FOREIGN KEY ("resolved_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "oidc_conflicts_open_key" ON "oidc_conflicts" USING btree ("user_id","issuer","subject") WHERE "oidc_conflicts"."resolved_at" is null;
