import postgres from "postgres";
import { performance } from "node:perf_hooks";
process.env.DATABASE_URL = process.env.PROF_URL ?? "postgres://postgres@127.0.0.1:5432/cm_prof";
process.env.APP_URL ??= "http://127.0.0.1:3000";
process.env.SESSION_SECRET ??= "bench-session-secret-0123456789-0123456789";
process.env.LOG_LEVEL = "warn";
const admin = postgres("postgres://postgres@127.0.0.1:5432/test", { onnotice: () => {} });
if (!process.env.REUSE) {
  await admin.unsafe("drop database if exists cm_prof with (force)");
  await admin.unsafe("create database cm_prof");
}
await admin.end();
const { migrateDatabase } = await import("../../db/migrate");
const { insertUsers, insertMocs, hseqPool } = await import("./data");
const client = postgres(process.env.DATABASE_URL, { onnotice: () => {} });
const N = Number(process.env.N ?? 1500);
if (!process.env.REUSE) {
  await migrateDatabase(process.env.DATABASE_URL);
  await insertUsers(client);
  await insertMocs(client, { from: 1, to: N, mode: "hseq-pool" });
}
const pool = await hseqPool(client);
const { getUserById, toPublicUser } = await import("../../app/models/user.server");
const { runStep } = await import("../../app/models/moc-workflow.server");
const { STEPS } = await import("../../app/models/moc-steps.server");
const hseqIds = (await client<{ id: string }[]>`select id from users where department = 'hseq' order by email`).map((r) => r.id);
const actors = await Promise.all(hseqIds.map(async (id) => toPublicUser((await getUserById(id))!)));
const form = STEPS.hseq.form.parse({
  "hseq-change-adequately": { value: "yes" },
  "hseq-justification-satisfactory": { value: "yes" },
  "hseq-risk-assessment-covered": { value: "yes" },
});
const CONC = Number(process.env.CONC ?? 1);
let next = 0;
const warm = 50;
for (let i = 0; i < warm; i++) await runStep("hseq", actors[i % actors.length]!, pool[next++]!, form as never);
const c0 = process.cpuUsage(); const t0 = performance.now();
const count = Math.min(pool.length - warm, Number(process.env.STEPS ?? 800));
let done = 0;
await Promise.all(Array.from({ length: CONC }, async () => {
  while (done < count) { done++; const n = next++; await runStep("hseq", actors[n % actors.length]!, pool[n]!, form as never); }
}));
const c = process.cpuUsage(c0); const t = performance.now() - t0;
console.log(`${count} steps, conc ${CONC}: ${(t / count).toFixed(2)} ms wall/step, ${((c.user + c.system) / 1000 / count).toFixed(2)} ms node cpu/step (user ${(c.user/1000/count).toFixed(2)}), ${(count / t * 1000).toFixed(0)} steps/s`);
await client.end();
process.exit(0);
