-- The idempotency store keeps no credentials (docs/decisions/048-replays-keep-no-credentials.md).
-- Rows written before may hold them: a keyed POST /login kept its answer, the session token; every
-- fingerprint was an unsalted SHA-256 of the request, password fields included, which a word list
-- reverses. Rows of the credential routes and rows whose answer sets a cookie or holds a token,
-- password or secret go. The others keep their answer for the hours they have left (24 at most),
-- but not their old fingerprint: no HMAC equals the text put in its place, so such a key sent
-- again is 422 and nothing is applied twice.
DELETE FROM "idempotency_keys"
WHERE lower("path") ~ '^/(login|logout|onboarding|profile|auth|unsubscribe|api/user|api/verify)([/?.]|$)'
  OR "headers"::text ~* 'set-cookie'
  OR encode(decode("body", 'base64'), 'escape') ~* '"[a-z_-]*(token|password|passwd|secret)[a-z_-]*"';
--> statement-breakpoint
UPDATE "idempotency_keys" SET "fingerprint" = 'sha-256, written before decision 048';
