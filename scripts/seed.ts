/**
 * `npm run db:seed`: demo users for every role, department, access level and PCR position, and
 * MOCs in every workflow state, made through the real model functions (createMoc, runStep,
 * cloneMoc, ...) so their forms, audit logs and queued emails are what the app itself writes.
 *
 * Uses DATABASE_URL; without it, the embedded PostgreSQL under DATA_DIR (default `.data`) that
 * `npm start` uses, which must not be running at the same time. It reads the secrets `npm start`
 * reads (app/server/secrets.ts). The whole seed is one transaction: a failure leaves nothing, and
 * running it again starts afresh; once it has run, running it again adds nothing.
 */
import "~/models/kinds/record-kinds.server";
import { eq, inArray, like, sql } from "drizzle-orm";
import { runningEmbeddedServer, startEmbeddedPostgres, type EmbeddedDatabase } from "#db/embedded";
import { migrateDatabase } from "#db/migrate";
import { mocs, users, type Department, type Position } from "#db/schema";
import { stopBoss } from "#jobs/boss";
import type { NewMocInput } from "~/models/moc/moc.schema";
import { mocStatusLabel } from "~/models/moc/moc-status";
import { runStepForDocument } from "~/models/moc/moc-workflow.server";
import type { StepInput } from "~/models/moc/moc-steps.server";
import {
  assignMocRole,
  cloneMoc,
  createMoc,
  setActionPlan,
  setImpactAssessment,
  setManualPlan,
  setRiskAssessment,
} from "~/models/moc/moc.server";
import type { ArchiveKind } from "~/models/archive/archive.schema";
import { importArchiveCsv } from "~/models/archive/archive-import.server";
import { postMessage } from "~/models/records/chat.server";
import type { MocDocument } from "~/models/moc/moc-document";
import type { ReviewInput } from "~/models/review/review.schema";
import { createReview } from "~/models/review/review.server";
import { addAssignment, createVessel, listVessels } from "~/models/fleet/vessel.server";
import { insertUser, toPublicUser, type PublicUser } from "~/models/people/user.server";
import { closeDb, getDb, inRequestTransaction } from "~/utils/db.server";
import { loadDevelopmentSecrets } from "~/server/secrets";
import { env as readEnv, EnvError, resetEnv } from "~/utils/env.server";

export const DEMO_PASSWORD = "demo-password";
export const DEMO_DOMAIN = "demo.example.com";

type DemoUser = {
  key: string;
  name: string;
  role: "admin" | "user";
  department: Department;
  access: "full" | "standard";
  position: Position | null;
  note: string;
};

/** Every role, department, access level and PCR position appears at least once. */
const DEMO_USERS = [
  {
    key: "admin",
    name: "Ada Morgan",
    role: "admin",
    department: "hseq",
    access: "full",
    position: null,
    note: "administrator",
  },
  {
    key: "olivia",
    name: "Olivia Grant",
    role: "user",
    department: "engineering",
    access: "standard",
    position: null,
    note: "originator of most demo MOCs",
  },
  {
    key: "ivan",
    name: "Ivan Petrov",
    role: "user",
    department: "engineering",
    access: "standard",
    position: null,
    note: "implementer",
  },
  {
    key: "omar",
    name: "Omar Haddad",
    role: "user",
    department: "operations",
    access: "standard",
    position: null,
    note: "implementer",
  },
  {
    key: "amir",
    name: "Amir Khan",
    role: "user",
    department: "operations",
    access: "full",
    position: null,
    note: "approver",
  },
  {
    key: "vera",
    name: "Vera Lindqvist",
    role: "user",
    department: "operations",
    access: "standard",
    position: null,
    note: "verifier",
  },
  {
    key: "farah",
    name: "Farah Said",
    role: "user",
    department: "fleet",
    access: "standard",
    position: null,
    note: "originator, fleet",
  },
  {
    key: "hana",
    name: "Hana Sato",
    role: "user",
    department: "hseq",
    access: "standard",
    position: "HSEQ Coordinator",
    note: "HSEQ reviewer",
  },
  {
    key: "victor",
    name: "Victor Hale",
    role: "user",
    department: "fleet",
    access: "full",
    position: "VP Fleet Management",
    note: "PCR chain",
  },
  {
    key: "grace",
    name: "Grace Okafor",
    role: "user",
    department: "hseq",
    access: "full",
    position: "Group HSEQ Manager",
    note: "PCR chain",
  },
  {
    key: "dmitri",
    name: "Dmitri Volkov",
    role: "user",
    department: "hseq",
    access: "full",
    position: "Director HSEQ",
    note: "PCR chain",
  },
  {
    key: "petra",
    name: "Petra Nilsen",
    role: "user",
    department: "operations",
    access: "full",
    position: "President",
    note: "PCR chain",
  },
] as const satisfies readonly DemoUser[];

type Key = (typeof DEMO_USERS)[number]["key"];
type Cast = Record<Key, PublicUser>;

const demoEmail = (key: string) => `${key}@${DEMO_DOMAIN}`;

// ---------------------------------------------------------------------------------------------
// Form bodies, shaped as the pages and the API send them

const v = <T>(value: T) => ({ value });
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

type Change = {
  /** Part A's title and scope (docs/decisions/036-vessels-and-crew-access.md): a demo vessel's name, or office / fleet. */
  title: string;
  vessel: DemoVessel | "office" | "fleet";
  department: Department;
  description: string;
  reason: string;
  affected: Department[];
  inform?: Department[];
};

/** The demo fleet (IMO numbers with valid check digits). */
const DEMO_VESSELS = [
  { name: "MV Borealis", imo: "9074729", ship_type: "Bulk carrier", flag: "Malta" },
  { name: "MV Aurora", imo: "9321483", ship_type: "Product tanker", flag: "Marshall Islands" },
  { name: "MV Polaris", imo: "9176187", ship_type: "Container ship", flag: "Cyprus" },
] as const;
type DemoVessel = (typeof DEMO_VESSELS)[number]["name"];
/** The demo vessels' ids by name, once they are in the register. */
const vesselIds = new Map<string, string>();

function partA(implementer: PublicUser | null, change: Change): NewMocInput {
  return {
    title: v(change.title),
    vessel: v(
      change.vessel === "office" || change.vessel === "fleet" ? change.vessel : { _id: vesselIds.get(change.vessel)! },
    ),
    implementer: implementer ? v({ _id: implementer._id }) : null,
    "department-of-change": v(change.department),
    "description-of-change": v(change.description),
    "reason-for-change": v(change.reason),
    "affected-departments": v(change.affected),
    "departments-to-inform": v(change.inform ?? []),
  };
}

const assess = (approver: PublicUser, hseq: PublicUser, targetInDays: number): StepInput<"implementer"> => ({
  "approver-name": v({ _id: approver._id }),
  "hseq-name": v({ _id: hseq._id }),
  "details-assessed": v("yes"),
  "necessary-justified": v("yes"),
  "target-date": v(inDays(targetInDays)),
});

const declineAssessment = (reason: string): StepInput<"implementer"> => ({
  "details-assessed": v("yes"),
  "necessary-justified": v("no"),
  "decline-reason": v(reason),
});

const hseqReview = (pass: boolean, reason?: string): StepInput<"hseq"> => ({
  "hseq-change-adequately": v("yes"),
  "hseq-justification-satisfactory": v("yes"),
  "hseq-risk-assessment-covered": v(pass ? "yes" : "no"),
  ...(reason ? { "decline-reason": v(reason) } : {}),
});

const approval = (approve: boolean, reason?: string): StepInput<"approver"> => ({
  "approver-changes-reviewed": v("yes"),
  "approver-moc-approved": v(approve ? "yes" : "no"),
  ...(reason ? { "decline-reason": v(reason) } : {}),
});

const implementationReport = (
  request: { deviation?: string; extension?: { days: number; reason: string } } = {},
): StepInput<"implementation"> => ({
  "deviation-during-implementation": v(request.deviation ? "yes" : "no"),
  "moc-require-extension": v(request.extension ? "yes" : "no"),
  "moc-circulated": v("yes"),
  "implementation-as-planned": v(request.deviation ? "no" : "yes"),
  ...(request.deviation || request.extension ? {} : { "completion-date": v(inDays(0)) }),
  ...(request.deviation ? { "deviation-details": v(request.deviation) } : {}),
  ...(request.extension
    ? { "extension-date": v(inDays(request.extension.days)), "extension-reason": v(request.extension.reason) }
    : {}),
});

const verification = (close: boolean): StepInput<"verifier"> => ({
  "action-plan-correct": v("yes"),
  "manuals-changed": v("yes"),
  "trainings-complete": v("yes"),
  "feedback-complete": v("yes"),
  "moc-effective": v("yes"),
  "close-moc": v(close ? "yes" : "no"),
});

// ---------------------------------------------------------------------------------------------
// The demo records

type Made = { doc: MocDocument; story: string };

/** The bunkering changes' risk, ranked before and after its controls (Medium). */
const BUNKERING_RISK = {
  category: "Safety",
  hazards: ["Overflow during topping off", "Slips on the bunker station deck"],
  likelihood: 3,
  severity: 4,
  controls: "Second tank-level check before topping off; non-slip mats at the bunker station",
  residualLikelihood: 2,
  residualSeverity: 3,
};

async function seedMocs(c: Cast): Promise<Made[]> {
  const made: Made[] = [];
  const note = (doc: MocDocument, story: string) => made.push({ doc, story });

  const ballast = {
    title: "Ballast pump controller replacement",
    vessel: "MV Borealis",
    department: "engineering",
    description:
      "<p>Replace the <strong>ballast pump controller</strong> on MV Borealis with the type fitted to her sister ships.</p><ul><li>new PLC and HMI panel</li><li>updated alarm list</li></ul>",
    reason: "The current controller is obsolete and spare parts are no longer available",
    affected: ["engineering", "operations"],
    inform: ["fleet"],
  } satisfies Change;

  // a: a saved draft, no implementer chosen yet.
  const draft = await createMoc(
    c.olivia,
    partA(null, {
      title: "ECDIS software to the 2025 chart standard",
      vessel: "MV Aurora",
      department: "engineering",
      description: "<p>Upgrade the <em>ECDIS</em> software on MV Aurora to the 2025 chart standard.</p>",
      reason: "Type-approval of the current version ends this year",
      affected: ["engineering", "fleet"],
    }),
    { submit: false },
  );
  note(draft, "draft saved by the originator");

  // b: submitted Part A, waiting for the implementer.
  const atB = await createMoc(c.olivia, partA(c.ivan, ballast), { submit: true });
  note(atB, "waiting for the implementer's assessment");

  // c, d, e, f: one record stopped at each later step.
  const bunkering = (n: number) =>
    partA(c.omar, {
      title: `Bunkering checklist rev. ${n}: second tank-level check`,
      vessel: n % 3 === 0 ? "fleet" : n % 2 === 0 ? "MV Polaris" : "MV Borealis",
      department: "operations",
      description: `<p>Revise the <strong>bunkering checklist</strong> (rev. ${n}): add a second tank-level cross-check before topping off.</p>`,
      reason: "A near miss during bunkering in Rotterdam showed the single check is not enough",
      affected: ["operations", "fleet"],
      inform: ["hseq"],
    });

  // Each is ranked before its HSEQ review, as the risk gate asks on a new database (docs/decisions/037).
  const toC = async (n: number, targetDays: number) => {
    const moc = await createMoc(c.farah, bunkering(n), { submit: true });
    await setImpactAssessment(c.omar, moc._id, [BUNKERING_RISK]);
    return runStepForDocument("implementer", c.omar, moc._id, assess(c.amir, c.hana, targetDays));
  };
  note(await toC(1, 20), "waiting for the HSEQ review");

  const atD = await toC(2, 25);
  note(await runStepForDocument("hseq", c.hana, atD._id, hseqReview(true)), "waiting for the approver");

  const toE = async (n: number, targetDays: number) => {
    const moc = await toC(n, targetDays);
    await runStepForDocument("hseq", c.hana, moc._id, hseqReview(true));
    return runStepForDocument("approver", c.amir, moc._id, approval(true));
  };
  // The plans are made before the approval, which freezes them (docs/decisions/034-approved-content-and-deleting.md).
  const atE = await toC(3, 5);
  await setImpactAssessment(c.farah, atE._id, [
    BUNKERING_RISK,
    {
      category: "Environment",
      hazards: ["Oil spill to sea"],
      likelihood: 2,
      severity: 5,
      controls: "Scuppers plugged, spill kit at the manifold",
      residualLikelihood: 1,
      residualSeverity: 4,
    },
  ]);
  await setActionPlan(c.omar, atE._id, {
    items: [
      {
        description: "Print and post the revised checklist at every bunker station",
        owner: c.omar._id,
        due: inDays(3),
        done: false,
      },
      {
        description: "Brief the chief engineers at the next fleet call",
        owner: c.farah._id,
        due: inDays(4),
        done: false,
      },
    ],
  });
  await setManualPlan(c.omar, atE._id, {
    items: [
      {
        document: "Bunkering procedure OPS-07",
        change: "New step 4.3: second level check",
        owner: c.omar._id,
        due: inDays(5),
        done: false,
      },
    ],
  });
  await setRiskAssessment(c.farah, atE._id, "https://example.com/risk/bunkering-rev3.pdf");
  await runStepForDocument("hseq", c.hana, atE._id, hseqReview(true));
  note(
    await runStepForDocument("approver", c.amir, atE._id, approval(true)),
    "approved, being implemented (with impact assessment, action and manuals plans, risk attachment)",
  );

  const atF = await toE(4, 12);
  note(
    await runStepForDocument("implementation", c.omar, atF._id, implementationReport()),
    "implemented, waiting for verification",
  );

  // f, completed: a verifier was named, verified and closed it.
  const done = await toE(5, 30);
  await assignMocRole(c.farah, { mocId: done._id, userId: c.vera._id, role: "verifier" });
  await runStepForDocument("implementation", c.omar, done._id, implementationReport());
  note(await runStepForDocument("verifier", c.vera, done._id, verification(true)), "verified and closed (completed)");

  // decline at b: the implementer found it unjustified.
  const declinedB = await createMoc(
    c.olivia,
    partA(c.ivan, {
      title: "Second fresh-water generator",
      vessel: "MV Aurora",
      department: "engineering",
      description: "<p>Fit a second fresh-water generator on MV Aurora.</p>",
      reason: "Crew asked for more fresh-water capacity on long passages",
      affected: ["engineering"],
    }),
    { submit: true },
  );
  note(
    await runStepForDocument(
      "implementer",
      c.ivan,
      declinedB._id,
      declineAssessment("The existing generator covers the demand; the bottleneck is the storage tank, not production"),
    ),
    "declined by the implementer (Part B)",
  );

  // decline at d: the approver refused it.
  const declinedD = await toC(6, 40);
  await runStepForDocument("hseq", c.hana, declinedD._id, hseqReview(true));
  note(
    await runStepForDocument(
      "approver",
      c.amir,
      declinedD._id,
      approval(false, "Postpone to the next dry-dock; no budget this year"),
    ),
    "declined by the approver (Part D)",
  );

  // Returned by HSEQ to the implementer.
  const returned = await toC(7, 15);
  note(
    await runStepForDocument(
      "hseq",
      c.grace,
      returned._id,
      hseqReview(false, "Attach the risk assessment for the tank-level alarm test"),
    ),
    "returned to the implementer by HSEQ",
  );

  // Deviation and extension outstanding: back in b until the approver or HSEQ decides.
  const outstanding = await toE(8, 2);
  note(
    await runStepForDocument(
      "implementation",
      c.omar,
      outstanding._id,
      implementationReport({
        deviation: "<p>Used the existing level gauge instead of a new one; it was recalibrated instead.</p>",
        extension: { days: 45, reason: "The second gauge is back-ordered until next month" },
      }),
    ),
    "deviation and extension requested, waiting for a decision",
  );

  // Extension approved: resolved, so on to verification.
  const extended = await toE(9, 1);
  const requested = await runStepForDocument(
    "implementation",
    c.omar,
    extended._id,
    implementationReport({ extension: { days: 21, reason: "Crew change delayed the training sessions" } }),
  );
  const trackingId = (requested.extentionsAndDeviations as { _id: string })._id;
  note(
    await runStepForDocument("deviation-extension", c.amir, extended._id, {
      moc_id: extended._id,
      deviationExtentionId: trackingId,
      type: "extension",
      value: { approved: "yes", comment: "Agreed; keep the old checklist until then" },
    }),
    "extension approved, waiting for verification",
  );

  // A clone of the record declined at b, raised again by its originator.
  note(await cloneMoc(c.olivia, declinedB._id), `clone of ${declinedB.serial_num}`);

  return made;
}

// ---------------------------------------------------------------------------------------------
// Chat and a year-end review

const LEGACY_CSV: Record<ArchiveKind, string> = {
  moc: `serial_num,title,description,department,originator_name,date_raised,date_closed,status,attachments,notes
12-2011,Replace ballast pump seals,Seals replaced with a harder compound after two leaks,engineering,J. Marsh,2011-03-14,2011-06-02,closed,https://example.com/scans/moc-12-2011.pdf,Scanned from binder 3
31-2012,New mooring line inspection interval,Inspection every 3 months instead of 6,operations,A. Costa,2012-08-20,2012-11-30,closed,,
4-2013,Bridge watch levels in restricted visibility,Second lookout from visibility under 2 nm,fleet,P. Lind,2013-01-09,2013-04-18,closed,https://example.com/scans/moc-4-2013.pdf|https://example.com/scans/moc-4-2013-annex.pdf,
19-2014,Chemical store ventilation,Extra fan in the paint locker,hseq,R. Okafor,2014-05-27,,open,,Never closed on paper; check with the superintendent
7-2015,Galley fire suppression upgrade,Wet chemical system in all galleys,engineering,J. Marsh,2015-02-11,2015-09-01,closed,,
22-2015,Crew change procedure at anchorage,"Launch transfers only in daylight, sea state 3 or less",operations,A. Costa,2015-10-03,2016-01-15,closed,,
`,
  pcr: `serial_num,title,procedure,originator_name,date_raised,date_closed,status,attachments,notes
3-2012,Bunkering checklist revision,OPS-07 Bunkering,A. Costa,2012-02-02,2012-03-30,closed,https://example.com/scans/pcr-3-2012.pdf,
9-2013,Enclosed space entry permit,HSEQ-12 Enclosed spaces,R. Okafor,2013-06-17,2013-09-05,closed,,
2-2014,Garbage record book entries,ENV-03 Garbage management,P. Lind,2014-01-20,,open,,Awaiting the new MARPOL annex text
`,
};

async function seedExtras(c: Cast, made: Made[]): Promise<string[]> {
  const lines: string[] = [];
  const byStory = (part: string) => made.find((m) => m.story.includes(part))!.doc;
  const implementing = byStory("being implemented");
  const talk: [PublicUser, string][] = [
    [c.omar, "Revised checklist is printed; posting it at the bunker stations on Thursday."],
    [c.farah, "Thanks. Can you add a photo of the posted sheet to the action plan?"],
    [c.hana, "Please also brief the relief chief engineers, they join after the fleet call."],
    [c.omar, "Will do, adding them to the invitation."],
  ];
  for (const [who, message] of talk) await postMessage(who, { mocId: implementing._id }, { message });
  lines.push(`${talk.length} chat messages on MOC ${implementing.serial_num}`);

  const year = new Date().getUTCFullYear();
  const review = await createReview(c.hana, {
    year,
    title: `Management of change: ${year} in review`,
    sections: [
      {
        heading: "Overview",
        body: "<p>Most changes came from <strong>bunkering</strong> and engine-room equipment.</p>",
      },
      { heading: "What worked", body: "<ul><li>HSEQ reviews within a week</li><li>Clear action owners</li></ul>" },
      { heading: "What did not", body: "<p>Verification often waited for the next port call.</p>" },
    ],
    participants: [c.admin._id, c.farah._id, c.amir._id],
    effectiveness: "<p>Changes were effective where the action plan had named owners.</p>",
    improvements: "<p>Name a verifier when Part A is raised.</p>",
    issues: "<p>Two MOCs were implemented before approval.</p>",
    actions: [
      { description: "Add the verifier to Part A", owner: c.admin._id, due: inDays(-10), status: "open" },
      {
        description: "Train originators on risk attachments",
        owner: c.hana._id,
        due: inDays(30),
        status: "in_progress",
      },
      { description: "Publish the review to the fleet", owner: c.farah._id, due: inDays(-40), status: "done" },
    ],
  } as ReviewInput);
  lines.push(`year-end review "${review.title}"`);

  // Paper-era records, through the same CSV import an HSEQ user would use.
  for (const [kind, csv] of Object.entries(LEGACY_CSV) as [ArchiveKind, string][]) {
    const result = await importArchiveCsv(c.hana, kind, csv);
    if (!result.saved) throw new Error(`The demo legacy ${kind} CSV was refused: ${JSON.stringify(result.check)}`);
    lines.push(`${result.count} legacy ${kind === "moc" ? "MOC" : "PCR"} records`);
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------
// Running it

async function loadCast(): Promise<Cast | null> {
  const rows = await getDb()
    .select()
    .from(users)
    .where(
      inArray(
        users.email,
        DEMO_USERS.map((u) => demoEmail(u.key)),
      ),
    );
  if (rows.length === 0) return null;
  const byEmail = new Map(rows.map((row) => [row.email, toPublicUser(row)]));
  const cast = {} as Cast;
  for (const u of DEMO_USERS) {
    const user = byEmail.get(demoEmail(u.key));
    if (!user) throw new Error(`Some demo users exist but ${demoEmail(u.key)} does not; remove the demo users first`);
    cast[u.key] = user;
  }
  return cast;
}

async function createCast(): Promise<Cast> {
  // One transaction: either every demo user exists or none does.
  return getDb().transaction(async (tx) => {
    const cast = {} as Cast;
    for (const u of DEMO_USERS) {
      cast[u.key] = await insertUser(
        {
          name: u.name,
          email: demoEmail(u.key),
          password: DEMO_PASSWORD,
          role: u.role,
          department: u.department,
          access: u.access,
          position: u.position,
          onboarded: true,
        },
        tx,
      );
    }
    return cast;
  });
}

function printUsers(cast: Cast) {
  console.log(`\nDemo users (password for every one: ${DEMO_PASSWORD}):`);
  const rows = DEMO_USERS.map((u) => {
    const user = cast[u.key];
    return [user.email, [user.role, user.department, user.access, user.position].filter(Boolean).join(" / "), u.note];
  });
  const widths = [0, 1].map((i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const [email, what, note] of rows)
    console.log(`  ${email!.padEnd(widths[0]!)}  ${what!.padEnd(widths[1]!)}  ${note}`);
}

/** The demo fleet in the register, and Ivan on board MV Borealis for a month now (he reads her MOCs). */
async function seedVessels(c: Cast): Promise<void> {
  const existing = new Map((await listVessels()).map((v) => [v.imo, v._id]));
  for (const vessel of DEMO_VESSELS) {
    vesselIds.set(vessel.name, existing.get(vessel.imo) ?? (await createVessel(c.admin, vessel))._id);
  }
  if (existing.size === 0) {
    await addAssignment(c.admin, {
      vessel_id: vesselIds.get("MV Borealis")!,
      user_id: c.ivan._id,
      from: inDays(-30),
      to: null,
    });
  }
}

async function seed(): Promise<void> {
  let cast = await loadCast();
  if (cast) {
    const [row] = await getDb()
      .select({ n: sql<number>`count(*)::int` })
      .from(mocs)
      .innerJoin(users, eq(users.id, mocs.originatorId))
      .where(like(users.email, `%@${DEMO_DOMAIN}`));
    if ((row?.n ?? 0) > 0) {
      console.log(
        `Demo data is already there (${DEMO_USERS.length} demo users, ${row!.n} of their MOCs): nothing added.`,
      );
      printUsers(cast);
      return;
    }
    console.log("Demo users exist but have no MOCs: adding the demo MOCs.");
  } else {
    cast = await createCast();
  }
  await seedVessels(cast);
  const made = await seedMocs(cast);
  const extras = await seedExtras(cast, made);
  console.log(`\nDemo MOCs (${made.length}):`);
  for (const { doc, story } of made) {
    const status = `${doc.status}${doc.completed ? ", completed" : ""}`;
    console.log(
      `  ${doc.serial_num.padEnd(8)} ${status.padEnd(13)} ${mocStatusLabel(doc.status, doc.completed).padEnd(23)} ${story}`,
    );
  }
  console.log(`\nAlso: ${extras.join("; ")}.`);
  printUsers(cast);
  console.log(
    "\nThe notification emails these changes queued are delivered to the outbox (/admin/outbox) when `npm start` runs.",
  );
}

async function main(): Promise<void> {
  process.env.LOG_LEVEL ??= "warn";
  let dataDir: string;
  try {
    dataDir = readEnv().DATA_DIR;
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(error.message);
      process.exitCode = 1;
      return;
    }
    throw error;
  }

  // The secrets `npm start` uses (made here if the app never ran): the demo records' audit entries
  // are keyed with the AUDIT_KEY the app then verifies them with.
  await loadDevelopmentSecrets(dataDir, { create: true });
  let embedded: EmbeddedDatabase | undefined;
  if (!process.env.DATABASE_URL) {
    const pid = await runningEmbeddedServer(dataDir);
    if (pid) {
      console.error(
        `db:seed: the embedded database in ${dataDir}/ is in use (PostgreSQL pid ${pid}, probably \`npm start\`). ` +
          "Stop the app, run `npm run db:seed`, then start it again; or set DATABASE_URL.",
      );
      process.exitCode = 1;
      return;
    }
    console.log(`DATABASE_URL is not set: seeding the embedded database in ${dataDir}/ (the one \`npm start\` uses).`);
    embedded = await startEmbeddedPostgres({ dataDir });
    process.env.DATABASE_URL = embedded.url;
    resetEnv();
  }

  try {
    await migrateDatabase(process.env.DATABASE_URL!);
    // One transaction: the model functions' own transactions are savepoints of it, so a seed that
    // fails part way leaves nothing behind and can simply be run again.
    await inRequestTransaction(() => seed());
  } finally {
    // pg-boss started when the first email was queued; stop it, the pool, then the database.
    await stopBoss();
    await closeDb();
    await embedded?.stop();
  }
}

main().catch((error: unknown) => {
  // A failed query's own words are its cause (drizzle wraps the driver's error).
  const cause = error instanceof Error && error.cause instanceof Error ? `\nCaused by: ${error.cause.message}` : "";
  console.error(
    `db:seed failed, nothing was added: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}${cause}`,
  );
  process.exit(1);
});
