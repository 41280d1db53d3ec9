import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { Form } from "~/components/form";
import { z } from "zod";
import { ChatPanel } from "~/components/chat";
import { useFocusFirstInvalid } from "~/components/focus-first-invalid";
import { CONFIRM_DELETE_ID, CONFIRM_DELETE_PARAM, ConfirmDelete } from "~/components/confirm";
import { ErrorList, SubmitButton } from "~/components/submit";
import { departmentLabel, formatDateTime } from "~/components/moc";
import { RichText } from "~/components/moc-record";
import { PcrStatusBadge, SignatureBlock, SignaturePadField, type SlotView } from "~/components/pcr";
import { canEditPcr } from "~/models/authz/authz.server";
import { historyOf } from "~/models/audit/audit.server";
import { History } from "~/components/signatures";
import { signPageSchemaWith, substituteBodySchema, withdrawReasonSchema } from "~/models/pcr/pcr.schema";
import {
  clonePcr,
  deletePcr,
  namePcrSubstitute,
  pcrSubstituteOffer,
  roomOfPcr,
  withdrawPcr,
} from "~/models/pcr/pcr.server";
import { pcrSigningOffer, signPcrSlot } from "~/models/pcr/pcr-signing.server";
import { env } from "~/utils/env.server";
import {
  pendingReauthentication,
  REAUTH_FAILED,
  reauthenticate,
  reauthLink,
  reauthMethodFor,
} from "~/web/reauth.server";
import { useLazyValidation } from "~/components/lazy-validation";
import { Forbidden, Unauthorized } from "~/utils/errors";
import { redirectWithFlash } from "~/utils/flash.server";
import { runForPage } from "~/utils/page.server";
import { sanitizeRichText } from "~/utils/sanitize.server";
import { chatPageAction, chatPanelData, isChatPost } from "~/web/chat-page.server";
import { requirePcrForPage } from "~/web/pcr-page.server";
import { fillsSlot } from "~/models/audit/signature-roles";
import { capitalise } from "~/models/shared/labels";
import { CirculationsSection } from "~/components/circulations";
import { RecordReferences } from "~/components/record-references";
import { isReferencesPost, referencesPageAction, referencesPanel } from "~/web/references-page.server";
import { circulationsPanel } from "~/models/circulations/circulations.server";
import { RecordLinks } from "~/components/record-links";
import { linksPanel } from "~/web/record-links-page.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  {
    title: data
      ? `PCR ${data.pcr.serial_num}${data.pcr.form.title ? ` — ${data.pcr.form.title}` : ""} · Change Management`
      : "PCR · Change Management",
  },
];

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { user, sessionId, pcr, access: rules } = await requirePcrForPage(request, params.id);
  // How a signer proves it is them: their password, or a fresh sign-in at the identity provider.
  const reauth = reauthMethodFor(user);
  // The model says which slot it would accept a signature for now, so the page never offers a
  // form the signing refuses (a holder of two chain roles who signed one of them).
  const offer = await pcrSigningOffer(user, pcr._id);
  const signed = pcr.signatures.some((s) => typeof s.Signature === "string");
  // Stored HTML is sanitised on write; sanitise again before rendering.
  const form = {
    ...pcr.form,
    "manual-procedure": sanitizeRichText(pcr.form["manual-procedure"] ?? ""),
    "suggestion-details": sanitizeRichText(pcr.form["suggestion-details"] ?? ""),
    "reason-for-change": sanitizeRichText(pcr.form["reason-for-change"] ?? ""),
  };
  return {
    pcr: { ...pcr, form },
    next: offer.next,
    canSignSlot: offer.sign?.role ?? null,
    /** The absent holder whose slot the viewer signs, when they sign it as a delegate. */
    signsFor: offer.sign?.onBehalfOf ?? null,
    /** Why the viewer, who holds the next slot, may not sign it. */
    signRefused: offer.refused,
    commentSlots: offer.commentSlots,
    canSignAsParty: offer.canSignAsParty,
    isParty: offer.isParty,
    // Signed content is frozen: once a slot is signed the PCR is changed by cloning it.
    canEdit: canEditPcr(user, rules) && pcr.status === "pending" && !signed,
    frozen: signed,
    history: await historyOf("pcr", pcr._id),
    // Circulated for acknowledgement once finished (issue 41).
    circulations: pcr.status === "finished" ? await circulationsPanel(user, { kind: "pcr", id: pcr._id }) : null,
    // External references (issue 42): shown to every reader, changed by those who may.
    references: await referencesPanel(user, { kind: "pcr", id: pcr._id }),
    // Linked records (issue 42): those whose other end the reader may read too.
    links: await linksPanel(user, { kind: "pcr", id: pcr._id }),
    // A PCR anyone has signed is withdrawn, never deleted (docs/decisions/026-four-eyes-by-record.md).
    canDelete: canEditPcr(user, rules) && !signed && !pcr.affectedParties.some((p) => typeof p.Signature === "string"),
    canWithdraw: canEditPcr(user, rules) && pcr.status !== "withdrawn",
    // An admin names who signs the slot of the position the originator holds (docs/decisions/026).
    substitute: await pcrSubstituteOffer(user, pcr._id),
    // A recipient of a circulation reads the PCR but does not join its chat (issue 41): no panel.
    chat: await chatPanelData(request, user, roomOfPcr(pcr)).catch((error: unknown) => {
      if (error instanceof Forbidden) return null;
      throw error;
    }),
    reauth: {
      method: reauth,
      href: reauthLink(`/pcrs/${pcr._id}`),
      provider: env().OIDC_DISPLAY_NAME,
      confirmed: reauth === "provider" && Boolean(await pendingReauthentication(sessionId)),
    },
  };
}

const manageSchema = z.object({ intent: z.enum(["clone", "delete"]), confirmed: z.literal("yes").optional() });
const withdrawSchema = z.object({ intent: z.literal("withdraw"), reason: z.string().optional() });
const substituteSchema = z.object({ intent: z.literal("substitute"), role: z.string(), userId: z.string() });

/** The `?withdraw` address that asks for the reason before withdrawing, with the card in view. */
const CONFIRM_WITHDRAW_PARAM = "withdraw";
const CONFIRM_WITHDRAW_ID = "confirm-withdraw";

export async function action({ request, params }: ActionFunctionArgs) {
  const { user, sessionId, pcr } = await requirePcrForPage(request, params.id);
  const form = await request.formData();
  const here = `/pcrs/${pcr._id}`;
  if (isChatPost(form)) return chatPageAction(form, user, { pcrId: pcr._id }, here);
  if (isReferencesPost(form)) return referencesPageAction(form, user, { kind: "pcr", id: pcr._id }, here);
  const withdraw = withdrawSchema.safeParse(Object.fromEntries(form));
  if (withdraw.success) {
    const reason = withdrawReasonSchema.safeParse(withdraw.data.reason ?? "");
    if (!reason.success) {
      return data({ withdrawError: reason.error.issues[0]!.message }, { status: 400 });
    }
    const result = await runForPage(() => withdrawPcr(user, pcr._id, reason.data));
    if (!result.ok) return redirectWithFlash(here, { kind: "error", message: result.error.message });
    return redirectWithFlash(here, { kind: "success", message: `PCR ${pcr.serial_num} was withdrawn.` });
  }
  const substitute = substituteSchema.safeParse(Object.fromEntries(form));
  if (substitute.success) {
    // The API's body rules and the model's checks, as POST /api/pcr/substitute applies them.
    const body = substituteBodySchema.safeParse({ pcrId: pcr._id, ...substitute.data });
    if (!body.success) return data({ substituteError: "Choose who signs in the originator's place" }, { status: 400 });
    const result = await runForPage(() => namePcrSubstitute(user, body.data));
    if (!result.ok) {
      if (result.error.status === 400) return data({ substituteError: result.error.message }, { status: 400 });
      return redirectWithFlash(here, { kind: "error", message: result.error.message });
    }
    return redirectWithFlash(here, {
      kind: "success",
      message: `Substitute named: they sign as ${body.data.role} in place of the originator, and have been told.`,
    });
  }
  const manage = manageSchema.safeParse(Object.fromEntries(form));
  if (manage.success) {
    if (manage.data.intent === "clone") {
      const result = await runForPage(() => clonePcr(user, pcr.serial_num));
      if (!result.ok) return redirectWithFlash(here, { kind: "error", message: result.error.message });
      return redirectWithFlash(`/pcrs/${result.value._id}`, {
        kind: "success",
        message: `PCR ${pcr.serial_num} was cloned into PCR ${result.value.serial_num}.`,
      });
    }
    // Only the confirmation step's button deletes; a bare "delete" post asks first.
    if (!manage.data.confirmed) return redirect(`${here}?${CONFIRM_DELETE_PARAM}#${CONFIRM_DELETE_ID}`);
    const result = await runForPage(() => deletePcr(user, pcr._id));
    if (!result.ok) return redirectWithFlash(here, { kind: "error", message: result.error.message });
    return redirectWithFlash("/pcrs", { kind: "success", message: `PCR ${pcr.serial_num} was deleted.` });
  }

  const viaProvider = reauthMethodFor(user) === "provider";
  const submission = parseWithZod(form, { schema: signPageSchemaWith({ passwordRequired: !viaProvider }) });
  const hideFields = ["password"];
  if (submission.status !== "success") return data(submission.reply({ hideFields }), { status: 400 });
  const { intent, slot, signature, password, comments } = submission.value;
  if (intent === "sign") {
    // Signing asks again who it is (app/web/reauth.server.ts): the password, counted against the
    // sign-in budget, or a fresh sign-in at the identity provider.
    const check = await runForPage(() => reauthenticate({ user, sessionId }, request, { password, back: here }));
    if (!check.ok) {
      const message = check.error instanceof Unauthorized ? REAUTH_FAILED : check.error.message;
      return data(
        submission.reply(
          viaProvider ? { formErrors: [message], hideFields } : { fieldErrors: { password: [message] }, hideFields },
        ),
        { status: check.error.status === 401 ? 400 : check.error.status },
      );
    }
  }
  const result = await runForPage(() =>
    signPcrSlot(user, pcr._id, slot, { signature: intent === "sign" ? signature : undefined, comments }),
  );
  if (!result.ok) {
    if (result.error.status === 403 || result.error.status === 409)
      return redirectWithFlash(here, { kind: "error", message: result.error.message });
    return data(submission.reply({ formErrors: [result.error.message], hideFields }), { status: result.error.status });
  }
  const finished = result.value.status === "finished";
  return redirectWithFlash(here, {
    kind: "success",
    message:
      intent === "comment"
        ? "Your comment is recorded."
        : finished
          ? "Signed. Every signature is in: the PCR is finished."
          : "Signed. The next signer has been notified.",
  });
}

function SignForm({ slot, label, allowSign }: { slot: string; label: string; allowSign: boolean }) {
  const actionData = useActionData<typeof action>();
  const { reauth } = useLoaderData<typeof loader>();
  const viaProvider = reauth.method === "provider";
  // The chat form's and the withdrawal's answers are theirs, not this form's.
  const lastResult = actionData && !("chat" in actionData) && !("withdrawError" in actionData) ? actionData : undefined;
  const [form, fields] = useForm<z.input<ReturnType<typeof signPageSchemaWith>>>({
    id: `sign-${slot}`,
    lastResult,
    onValidate: useLazyValidation(`sign-${slot}`, () =>
      import("~/models/pcr/pcr.schema").then((m) => m.signPageSchemaWith({ passwordRequired: !viaProvider })),
    ),
    shouldValidate: "onSubmit",
  });
  useFocusFirstInvalid(form.id, form.allErrors);
  return (
    <Form method="post" {...getFormProps(form)} className="stack" encType="application/x-www-form-urlencoded">
      <input type="hidden" name="slot" value={slot} />
      <ErrorList id={form.errorId} errors={form.errors} />
      {allowSign ? (
        <>
          <p>
            Signing means: <em>{label}</em>.
          </p>
          <SignaturePadField
            name="signature"
            idPrefix={`sign-${slot.replace(/\W+/g, "-")}`}
            errors={fields.signature.errors}
            errorId={fields.signature.errorId}
            defaultValue={typeof fields.signature.initialValue === "string" ? fields.signature.initialValue : ""}
            key={fields.signature.key}
          />
          {viaProvider ? (
            <p className={reauth.confirmed ? "flash flash-success" : "flash flash-info"}>
              {reauth.confirmed ? (
                "You confirmed it is you: sign within five minutes of confirming."
              ) : (
                <>
                  Signing asks again who you are.{" "}
                  <a href={reauth.href} className="button">
                    Confirm it is you with {reauth.provider}
                  </a>{" "}
                  first, then draw or type your signature here.
                </>
              )}
            </p>
          ) : (
            <div className="field">
              <label htmlFor={fields.password.id}>Your password (to confirm it is you)</label>
              <input
                id={fields.password.id}
                name="password"
                type="password"
                autoComplete="current-password"
                aria-describedby={fields.password.errorId}
                aria-invalid={fields.password.errors ? true : undefined}
              />
              <ErrorList id={fields.password.errorId} errors={fields.password.errors} />
            </div>
          )}
        </>
      ) : null}
      <div className="field">
        <label htmlFor={fields.comments.id}>Comment{allowSign ? " (optional)" : ""}</label>
        <textarea
          id={fields.comments.id}
          name="comments"
          rows={2}
          defaultValue={typeof fields.comments.initialValue === "string" ? fields.comments.initialValue : ""}
          key={fields.comments.key}
          aria-describedby={fields.comments.errorId}
          aria-invalid={fields.comments.errors ? true : undefined}
        />
        <ErrorList id={fields.comments.errorId} errors={fields.comments.errors} />
      </div>
      <div className="form-actions">
        {allowSign ? (
          <SubmitButton name="intent" value="sign" pendingText="Signing…">
            Sign
          </SubmitButton>
        ) : null}
        <SubmitButton name="intent" value="comment" className="button" pendingText="Saving…">
          Comment without signing
        </SubmitButton>
      </div>
    </Form>
  );
}

export default function PcrPage() {
  const {
    pcr,
    next,
    canSignSlot,
    signsFor,
    signRefused,
    commentSlots,
    canSignAsParty,
    isParty,
    canEdit,
    frozen,
    canDelete,
    canWithdraw,
    substitute,
    chat,
    history,
    circulations,
    references,
  } = useLoaderData<typeof loader>();
  const { links } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const withdrawError = actionData && "withdrawError" in actionData ? actionData.withdrawError : null;
  const substituteError = actionData && "substituteError" in actionData ? actionData.substituteError : null;
  const [searchParams] = useSearchParams();
  const confirmingDelete = searchParams.has(CONFIRM_DELETE_PARAM);
  const confirmingWithdraw = searchParams.has(CONFIRM_WITHDRAW_PARAM) || Boolean(withdrawError);
  // The stored manifestation of each signature (printed name, position, meaning, UTC time) when there
  // is one: the holder's, or their delegate's ("acting <role>", on behalf of the holder).
  const manifestation = (role: string, signerId: string | null | undefined) =>
    pcr.signatureManifestations.find((m) => fillsSlot(m, role, signerId));
  const slots: SlotView[] = pcr.signatures.map((s, i) => {
    const m = typeof s.Signature === "string" ? manifestation(s.Name, s.signedBy?._id) : undefined;
    return {
      key: s.Name,
      title: s.Name,
      meaning: m ? capitalise(m.meaning) : `Reviewed and approved as ${s.Name}`,
      signer:
        m?.printedName ?? s.signedBy?.name ?? (s.Name === "Change Originator" ? (pcr.originator?.name ?? null) : null),
      // The signer's position as they signed (else the slot's); a delegate's own, never the slot's.
      position: m?.onBehalfOf
        ? m.position
        : (m?.position ?? (s.Name === "Change Originator" ? "Change Originator" : s.Name)),
      actingFor: m?.onBehalfOf?.name ?? null,
      // The name printed is the one the account had at signing; a later rename shows beside it.
      accountNow: m && s.signedBy && s.signedBy.name !== m.printedName ? s.signedBy.name : null,
      signature: s.Signature,
      signatureDate: m?.signedAt ?? s.signedAt,
      comments: s.Comments,
      state: typeof s.Signature === "string" ? "signed" : s.Signature === null ? "commented" : "unsigned",
      next: pcr.status === "pending" && i === next,
    };
  });
  const parties: SlotView[] = pcr.affectedParties.map((p) => ({
    key: p.Name.value,
    title: p.user?.name ?? "Affected party",
    meaning:
      typeof p.Signature === "string"
        ? capitalise(manifestation("Affected party", p.Name.value)?.meaning ?? "reviewed as an affected party")
        : "Reviewed as an affected party",
    signer: p.user?.name ?? null,
    position: p.user ? `${departmentLabel(p.user.department)}${p.user.position ? `, ${p.user.position}` : ""}` : null,
    actingFor: null,
    signature: p.Signature,
    signatureDate: p.signedAt,
    comments: p.Comments,
    state: typeof p.Signature === "string" ? "signed" : p.Signature === null ? "commented" : "unsigned",
    next: false,
  }));
  const flags = [
    pcr.form["safety-critical"] ? "Safety-critical" : null,
    pcr.form["new-suggestion"] ? "New suggestion" : null,
    pcr.form["procedure-change"] ? "Procedure change" : null,
  ].filter(Boolean);
  const otherComments = commentSlots.filter((r) => r !== canSignSlot);
  return (
    <>
      <p className="no-print">
        <Link to="/pcrs">← PCRs</Link>
      </p>
      <header className="record-header">
        <div>
          <h1>{pcr.form.title ? `PCR ${pcr.serial_num} — ${pcr.form.title}` : `PCR ${pcr.serial_num}`}</h1>
          <p className="owner-line">
            <PcrStatusBadge status={pcr.status} />{" "}
            {pcr.status === "withdrawn" ? (
              `Withdrawn ${pcr.withdrawnAt ? formatDateTime(pcr.withdrawnAt) : ""}: kept on record, no more signatures`
            ) : pcr.status === "finished" ? (
              `Finished ${pcr.finishedAt ? formatDateTime(pcr.finishedAt) : ""}`
            ) : next >= 0 ? (
              <>
                Next signature: <strong>{pcr.signatures[next]!.Name}</strong>
              </>
            ) : (
              "Waiting for the affected parties"
            )}
          </p>
          {pcr.cloned ? <p className="muted">Copy of PCR {pcr.previous_serial_num}</p> : null}
        </div>
        <div className="row no-print">
          {canEdit ? (
            <Link to="edit" className="button">
              Edit
            </Link>
          ) : null}
        </div>
      </header>
      {frozen && pcr.status === "pending" ? (
        <p className="callout no-print">
          Signed content is frozen: this PCR can no longer be edited. To propose a change, clone it (Actions, below).
        </p>
      ) : null}

      {canSignSlot ? (
        <section className="card" aria-labelledby="sign-title">
          <h2 id="sign-title">
            {signsFor
              ? `Your signature as acting ${canSignSlot}, on behalf of ${signsFor}`
              : `Your signature as ${canSignSlot}`}
          </h2>
          <SignForm slot={canSignSlot} label={`Reviewed and approved as ${canSignSlot}`} allowSign />
        </section>
      ) : null}
      {signRefused ? <p className="callout no-print">{signRefused}</p> : null}
      {canSignAsParty ? (
        <section className="card" aria-labelledby="party-sign-title">
          <h2 id="party-sign-title">Your signature as an affected party</h2>
          <SignForm slot="party" label="Reviewed as an affected party" allowSign />
        </section>
      ) : null}

      {substitute ? (
        <section className="card no-print" aria-labelledby="substitute-title">
          <h2 id="substitute-title">Who signs as {substitute.role}</h2>
          <p>
            {pcr.originator?.name ?? "The originator"} holds the position {substitute.role} and signs this PCR as Change
            Originator, so someone else signs its {substitute.role} slot. As an admin, name who.
          </p>
          <Form method="post" className="stack" preventScrollReset>
            <input type="hidden" name="role" value={substitute.role} />
            <div className="field">
              <label htmlFor="substitute-user">Signs as {substitute.role}</label>
              <select
                id="substitute-user"
                name="userId"
                required
                defaultValue={substitute.namedId ?? ""}
                aria-describedby={substituteError ? "substitute-user-error" : undefined}
                aria-invalid={substituteError ? true : undefined}
              >
                <option value="">Choose a person</option>
                {substitute.candidates.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.position ? `${p.name} (${p.position})` : p.name}
                  </option>
                ))}
              </select>
              <ErrorList id="substitute-user-error" errors={substituteError ? [substituteError] : null} />
            </div>
            <div className="row">
              <SubmitButton name="intent" value="substitute" className="button" pendingText="Saving…">
                {substitute.namedId ? "Name instead" : "Name the substitute"}
              </SubmitButton>
            </div>
          </Form>
        </section>
      ) : null}

      <section className="card" aria-labelledby="form-title">
        <h2 id="form-title">The request</h2>
        {flags.length ? (
          <p className="flags">
            {flags.map((f) => (
              <span key={f} className={f === "Safety-critical" ? "badge badge-danger" : "badge"}>
                {f}
              </span>
            ))}
          </p>
        ) : null}
        <dl className="answers">
          <dt>Originator</dt>
          <dd>{pcr.originator?.name ?? "—"}</dd>
          <dt>Raised</dt>
          <dd>{formatDateTime(pcr.createdAt)}</dd>
          <dt>Manual / procedure</dt>
          <dd>
            <RichText html={pcr.form["manual-procedure"]} />
          </dd>
          <dt>Suggestion details</dt>
          <dd>
            <RichText html={pcr.form["suggestion-details"]} />
          </dd>
          <dt>Reason for change</dt>
          <dd>
            <RichText html={pcr.form["reason-for-change"]} />
          </dd>
        </dl>
      </section>

      <section className="card" aria-labelledby="chain-title">
        <h2 id="chain-title">Signatures</h2>
        <ol className="signature-chain">
          {slots.map((slot) => (
            <SignatureBlock key={slot.key} slot={slot} />
          ))}
        </ol>
      </section>

      <section className="card" aria-labelledby="parties-title">
        <h2 id="parties-title">Affected parties</h2>
        {parties.length === 0 ? (
          <p className="muted">No affected parties.</p>
        ) : (
          <ul className="signature-chain">
            {parties.map((slot) => (
              <SignatureBlock key={slot.key} slot={slot} />
            ))}
          </ul>
        )}
      </section>

      {otherComments.length > 0 || (isParty && !canSignAsParty) ? (
        <section className="card no-print" aria-labelledby="comment-title">
          <h2 id="comment-title">Comment</h2>
          {otherComments.map((role) => (
            <div key={role}>
              <h3>As {role}</h3>
              <SignForm slot={role} label={role} allowSign={false} />
            </div>
          ))}
          {isParty && !canSignAsParty ? <SignForm slot="party" label="Affected party" allowSign={false} /> : null}
        </section>
      ) : null}

      <RecordReferences panel={references} />

      <RecordLinks panel={links} here={`/pcrs/${pcr._id}`} />

      <CirculationsSection record={`pcr:${pcr._id}`} panel={circulations} />

      <section className="card" aria-labelledby="history-title">
        <h2 id="history-title">History</h2>
        <History entries={history} />
      </section>

      {chat ? <ChatPanel chat={chat} /> : null}

      <section className="card no-print" aria-labelledby="pcr-actions-title">
        <h2 id="pcr-actions-title">Actions</h2>
        <div className="row">
          <Form method="post">
            <SubmitButton name="intent" value="clone" className="button" pendingText="Cloning…">
              Clone into a new PCR
            </SubmitButton>
          </Form>
          <Link to={`/pcrs/${pcr._id}/attachments`} className="button">
            Attachments
          </Link>
          <Link to={`/pcrs/${pcr._id}/print`} className="button">
            Print view
          </Link>
          <a href={`/pcrs/${pcr._id}/pdf`} className="button">
            Download PDF
          </a>
          {canDelete ? (
            <Link
              to={`?${CONFIRM_DELETE_PARAM}#${CONFIRM_DELETE_ID}`}
              className="button button-danger"
              preventScrollReset
            >
              Delete PCR
            </Link>
          ) : null}
          {canWithdraw ? (
            <Link
              to={`?${CONFIRM_WITHDRAW_PARAM}#${CONFIRM_WITHDRAW_ID}`}
              className="button button-danger"
              preventScrollReset
            >
              Withdraw PCR
            </Link>
          ) : null}
        </div>
        {canDelete && confirmingDelete ? (
          <ConfirmDelete
            title={`Delete PCR ${pcr.serial_num}?`}
            confirmLabel={`Delete PCR ${pcr.serial_num}`}
            cancelTo={`/pcrs/${pcr._id}`}
          >
            <p>It is removed permanently, with its comments. Nobody has signed it yet.</p>
          </ConfirmDelete>
        ) : null}
        {canWithdraw && confirmingWithdraw ? (
          <section
            id={CONFIRM_WITHDRAW_ID}
            className="card confirm-card"
            aria-labelledby={`${CONFIRM_WITHDRAW_ID}-title`}
          >
            <h2 id={`${CONFIRM_WITHDRAW_ID}-title`}>Withdraw PCR {pcr.serial_num}?</h2>
            <p>
              It stays on record with its signatures, attachments and history, marked withdrawn; nobody can sign it any
              more.
            </p>
            <Form method="post" className="stack" preventScrollReset>
              <div className="field">
                <label htmlFor="withdraw-reason">Why is it withdrawn?</label>
                <textarea
                  id="withdraw-reason"
                  name="reason"
                  rows={3}
                  required
                  maxLength={2000}
                  aria-describedby={withdrawError ? "withdraw-reason-error" : undefined}
                  aria-invalid={withdrawError ? true : undefined}
                />
                <ErrorList id="withdraw-reason-error" errors={withdrawError ? [withdrawError] : null} />
              </div>
              <div className="row">
                <SubmitButton
                  name="intent"
                  value="withdraw"
                  className="button button-danger"
                  pendingText="Withdrawing…"
                >
                  {`Withdraw PCR ${pcr.serial_num}`}
                </SubmitButton>
                <Link to={`/pcrs/${pcr._id}`} className="button" replace>
                  Cancel
                </Link>
              </div>
            </Form>
          </section>
        ) : null}
      </section>
    </>
  );
}
