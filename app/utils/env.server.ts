import { z } from "zod";
import { trustProxyProblem } from "./client-address.server";
import { groupMapProblem } from "./oidc-group-map";

const optional = z
  .string()
  .trim()
  .transform((v) => (v === "" ? undefined : v))
  .optional();

const schema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    DATABASE_URL: optional,
    DATA_DIR: z.string().default(".data"),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: optional,
    APP_URL: optional.pipe(z.url({ protocol: /^https?$/ }).optional()),
    SESSION_SECRET: optional,
    // HMAC key(s) of the audit chains, never stored in the database (docs/decisions/025-keyed-audit-chain.md).
    AUDIT_KEY: optional,
    // When the chain heads are sealed (a file in DATA_DIR/seals and an email to the admins), UTC.
    AUDIT_SEAL_CRON: z.string().default("15 0 * * *"),
    RESEND_API_KEY: optional,
    RESEND_BASE_URL: optional.pipe(z.url().optional()),
    // The mail API's request rate, shared by every instance (one API key): Resend allows 2 by default.
    RESEND_MAX_REQUESTS_PER_SECOND: z.coerce.number().min(0.1).max(1000).default(2),
    MAIL_FROM: z.string().default("Change Management <moc@localhost>"),
    CRON_SECRET: optional,
    ADMIN_EMAIL: optional.pipe(z.email().optional()),
    ADMIN_PASSWORD: optional.pipe(z.string().min(8, "ADMIN_PASSWORD must be at least 8 characters").optional()),
    IMAGE_PROXY_ALLOWED_HOSTS: optional,
    // The whole fetch of one image, redirects and body included (docs/decisions/009-image-proxy.md: 10 s).
    IMAGE_PROXY_TIMEOUT_MS: z.coerce.number().int().min(1).max(120_000).default(10_000),
    // Concurrent image fetches, per signed-in user and in all (docs/security.md).
    IMAGE_PROXY_MAX_PER_USER: z.coerce.number().int().min(1).max(100).default(8),
    IMAGE_PROXY_MAX_CONCURRENT: z.coerce.number().int().min(1).max(1000).default(64),
    // Which proxies may say who the client is in X-Forwarded-For (docs/security.md).
    TRUST_PROXY: optional,
    // Slow clients (docs/security.md, "Slow clients"): a response the client stops reading, or a
    // request body that stops arriving, for this long is cut.
    CLIENT_STALL_SECONDS: z.coerce.number().min(0.5).max(600).default(30),
    // CSV exports, uploads and PDFs running at once: per person, and in all in one process.
    EXPORTS_PER_PERSON: z.coerce.number().int().min(1).max(20).default(2),
    EXPORTS_MAX_CONCURRENT: z.coerce.number().int().min(1).max(1000).default(16),
    UPLOADS_PER_PERSON: z.coerce.number().int().min(1).max(20).default(2),
    UPLOADS_MAX_CONCURRENT: z.coerce.number().int().min(1).max(1000).default(16),
    // Resumable (tus) uploads not finished yet, counted by their declared sizes (docs/security.md,
    // "Resumable uploads"): per person, in all, and how long one may take from its creation. A
    // person's MiB are at least one whole file's 10.
    RESUMABLE_UPLOADS_PER_PERSON: z.coerce.number().int().min(1).max(100).default(4),
    RESUMABLE_UPLOADS_MIB_PER_PERSON: z.coerce.number().int().min(10).max(10_000).default(25),
    RESUMABLE_UPLOADS_MIB_TOTAL: z.coerce.number().int().min(10).max(1_000_000).default(512),
    RESUMABLE_UPLOAD_HOURS: z.coerce.number().min(1).max(720).default(24),
    // A PDF is made in a worker thread within these budgets (one at a time per person).
    PDF_MAX_PAGES: z.coerce.number().int().min(1).max(10_000).default(400),
    PDF_TIME_SECONDS: z.coerce.number().min(1).max(600).default(20),
    PDF_MAX_CONCURRENT: z.coerce.number().int().min(1).max(64).default(4),
    REMINDER_CRON: z.string().default("0 8 * * *"),
    EMAIL_RETRY_LIMIT: z.coerce.number().int().min(0).max(20).default(6),
    EMAIL_RETRY_DELAY_SECONDS: z.coerce.number().int().min(1).default(15),
    EMAIL_JOB_TIMEOUT_SECONDS: z.coerce.number().int().min(1).default(60),
    JOBS_MAINTENANCE_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(600).default(120),
    JOBS_POLLING_INTERVAL_SECONDS: z.coerce.number().min(0.5).max(60).default(2),
    // Operations (docs/decisions/030-backups.md, docs/architecture.md "Operations").
    METRICS_TOKEN: optional,
    // Whether `npm start` also runs the background workers ("off" with `npm run worker` beside it).
    WORKERS: z.enum(["on", "off"]).default("on"),
    // Scheduled backups into BACKUP_DIR (default DATA_DIR/backups): "auto" is on with the embedded database.
    BACKUP_SCHEDULE: z.enum(["auto", "on", "off"]).default("auto"),
    BACKUP_CRON: z.string().default("30 2 * * *"),
    BACKUP_DIR: optional,
    BACKUP_KEEP_DAILY: z.coerce.number().int().min(1).max(365).default(7),
    BACKUP_KEEP_WEEKLY: z.coerce.number().int().min(0).max(520).default(4),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    // OpenID Connect sign-in and password policy (docs/decisions/029-oidc-and-notifications.md).
    OIDC_ISSUER: optional.pipe(z.url({ protocol: /^https?$/ }).optional()),
    OIDC_CLIENT_ID: optional,
    OIDC_CLIENT_SECRET: optional,
    OIDC_SCOPES: z.string().trim().default("openid email profile"),
    OIDC_GROUPS_CLAIM: z.string().trim().min(1).default("groups"),
    OIDC_DISPLAY_NAME: z.string().trim().min(1).default("your company account"),
    /** The issuer vouches for every email it sends (no `email_verified` claim needed). */
    OIDC_TRUST_EMAIL: z.enum(["0", "1"]).default("0"),
    OIDC_AUTO_CREATE: z.enum(["0", "1"]).default("0"),
    OIDC_GROUP_MAP: optional,
    OIDC_DEFAULT_DEPARTMENT: z.enum(["engineering", "operations", "fleet", "hseq"]).default("operations"),
    PASSWORD_SIGN_IN: z.enum(["on", "off"]).default("on"),
    /** The one account that still signs in with a password when PASSWORD_SIGN_IN=off. */
    BREAK_GLASS_EMAIL: optional.pipe(z.email().optional()),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === "production" && !env.SESSION_SECRET) {
      ctx.addIssue({ code: "custom", path: ["SESSION_SECRET"], message: "SESSION_SECRET is required in production" });
    }
    if (env.SESSION_SECRET && env.SESSION_SECRET.split(",").some((key) => key.trim().length < 32)) {
      ctx.addIssue({
        code: "custom",
        path: ["SESSION_SECRET"],
        message: "each SESSION_SECRET key must be at least 32 characters",
      });
    }
    if (env.NODE_ENV === "production" && !env.AUDIT_KEY) {
      ctx.addIssue({ code: "custom", path: ["AUDIT_KEY"], message: "AUDIT_KEY is required in production" });
    }
    if (env.AUDIT_KEY && env.AUDIT_KEY.split(",").some((key) => key.trim().length < 32)) {
      ctx.addIssue({
        code: "custom",
        path: ["AUDIT_KEY"],
        message: "each AUDIT_KEY key must be at least 32 characters",
      });
    }
    const proxyProblem = trustProxyProblem(env.TRUST_PROXY);
    if (proxyProblem) ctx.addIssue({ code: "custom", path: ["TRUST_PROXY"], message: proxyProblem });
    const oidcSet = [env.OIDC_ISSUER, env.OIDC_CLIENT_ID, env.OIDC_CLIENT_SECRET].filter(Boolean).length;
    if (oidcSet !== 0 && oidcSet !== 3) {
      ctx.addIssue({
        code: "custom",
        path: ["OIDC_ISSUER"],
        message: "OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together",
      });
    }
    if (env.PASSWORD_SIGN_IN === "off" && oidcSet !== 3) {
      ctx.addIssue({ code: "custom", path: ["PASSWORD_SIGN_IN"], message: "PASSWORD_SIGN_IN=off needs OIDC_ISSUER" });
    }
    if (env.PASSWORD_SIGN_IN === "off" && !env.BREAK_GLASS_EMAIL && !env.ADMIN_EMAIL) {
      ctx.addIssue({
        code: "custom",
        path: ["BREAK_GLASS_EMAIL"],
        message: "PASSWORD_SIGN_IN=off needs BREAK_GLASS_EMAIL (the admin who may still use a password)",
      });
    }
    const mapProblem = groupMapProblem(env.OIDC_GROUP_MAP);
    if (mapProblem) ctx.addIssue({ code: "custom", path: ["OIDC_GROUP_MAP"], message: mapProblem });
    if (env.RESUMABLE_UPLOADS_MIB_PER_PERSON > env.RESUMABLE_UPLOADS_MIB_TOTAL) {
      ctx.addIssue({
        code: "custom",
        path: ["RESUMABLE_UPLOADS_MIB_PER_PERSON"],
        message: "RESUMABLE_UPLOADS_MIB_PER_PERSON cannot be more than RESUMABLE_UPLOADS_MIB_TOTAL",
      });
    }
    if (Boolean(env.ADMIN_EMAIL) !== Boolean(env.ADMIN_PASSWORD)) {
      ctx.addIssue({ code: "custom", path: ["ADMIN_EMAIL"], message: "ADMIN_EMAIL and ADMIN_PASSWORD go together" });
    }
  });

export type Env = z.infer<typeof schema> & { APP_URL: string };

/** Thrown at boot with a one-line reason (the server prints it and exits). */
export class EnvError extends Error {}

const holder = globalThis as typeof globalThis & { __cmEnv?: Env };

export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const parsed = schema.safeParse(source);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new EnvError(`Invalid environment: ${first?.message ?? "unknown problem"}`);
  }
  const env = parsed.data;
  return { ...env, APP_URL: (env.APP_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, "") };
}

/** The validated environment, read once per process. */
export function env(): Env {
  holder.__cmEnv ??= loadEnv();
  return holder.__cmEnv;
}

/** Forget the cached environment (tests change variables between cases). */
export function resetEnv(): void {
  holder.__cmEnv = undefined;
}
