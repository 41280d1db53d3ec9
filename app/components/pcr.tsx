import { useEffect, useRef, useState } from "react";
import { ErrorList } from "./submit";
import { formatDateTime } from "./moc";
import { useHydrated } from "./use-hydrated";

export function PcrStatusBadge({ status }: { status: string }) {
  if (status === "withdrawn") return <span className="badge">Withdrawn</span>;
  return status === "finished" ? (
    <span className="badge badge-success">Finished</span>
  ) : (
    <span className="badge badge-warning">Collecting signatures</span>
  );
}

/** A signature as it was given: the drawn image, or the typed name in a signature style. */
export function SignatureMark({ value, signer }: { value: unknown; signer: string }) {
  if (typeof value !== "string") return null;
  if (value.startsWith("data:image/png;base64,")) {
    return <img src={value} alt={`Signature of ${signer}`} className="signature-image" />;
  }
  return (
    <span className="signature-typed" aria-label={`Typed signature: ${value}`}>
      {value}
    </span>
  );
}

export type SlotView = {
  key: string;
  title: string;
  meaning: string;
  signer: string | null;
  position: string | null;
  /** The absent holder a delegate signed for, by name. */
  actingFor: string | null;
  /**
   * The signing account's name now, when it differs from the printed name (the account was
   * renamed after signing, docs/decisions/026-four-eyes-by-record.md).
   */
  accountNow?: string | null;
  signature: unknown;
  signatureDate: string | null;
  comments: string;
  state: "signed" | "commented" | "unsigned";
  next: boolean;
};

export function SignatureBlock({ slot }: { slot: SlotView }) {
  return (
    <li
      className={`signature-block${slot.next ? " signature-next" : ""}${slot.state === "signed" ? " signature-signed" : ""}`}
    >
      <div className="signature-head">
        <strong>{slot.title}</strong>
        {slot.next ? <span className="badge badge-info">Next to sign</span> : null}
        {slot.state === "signed" ? <span className="badge badge-success">Signed</span> : null}
      </div>
      {slot.state === "signed" ? (
        <>
          <SignatureMark value={slot.signature} signer={slot.signer ?? slot.title} />
          <p className="signature-meaning">{slot.meaning}</p>
          <dl className="answers">
            <dt>Printed name</dt>
            <dd>{slot.signer ?? "—"}</dd>
            {slot.accountNow ? (
              <>
                <dt>Account</dt>
                <dd>{`${slot.accountNow} (renamed since signing)`}</dd>
              </>
            ) : null}
            <dt>Position</dt>
            <dd>{slot.position ?? "—"}</dd>
            {slot.actingFor ? (
              <>
                <dt>Signed as</dt>
                <dd>{`acting ${slot.title}, on behalf of ${slot.actingFor}`}</dd>
              </>
            ) : null}
            <dt>Signed</dt>
            <dd>{slot.signatureDate ? formatDateTime(slot.signatureDate) : "—"}</dd>
          </dl>
        </>
      ) : (
        <p className="muted">Not signed yet{slot.signer && slot.signer !== slot.title ? ` — ${slot.signer}` : ""}.</p>
      )}
      {slot.comments ? <p className="signature-comment">Comment: “{slot.comments}”</p> : null}
    </li>
  );
}

/**
 * Where the signer signs: their typed full name, which works from the keyboard and without
 * JavaScript, or (with JavaScript) a drawing on a canvas whose PNG goes in a hidden field. The
 * server accepts either. A typed name comes back filled in after an error (`defaultValue`).
 */
export function SignaturePadField({
  name,
  errors,
  errorId,
  idPrefix,
  defaultValue,
}: {
  name: string;
  errors?: string[];
  errorId: string;
  idPrefix: string;
  defaultValue?: string;
}) {
  const enhanced = useHydrated();
  const typedBefore = defaultValue && !defaultValue.startsWith("data:") ? defaultValue : "";
  const [mode, setMode] = useState<"type" | "draw">("type");
  const [value, setValue] = useState("");
  const canvas = useRef<HTMLCanvasElement>(null);
  const pad = useRef<{ clear: () => void; off: () => void } | null>(null);
  const drawing = enhanced && mode === "draw";
  useEffect(() => {
    if (!drawing || !canvas.current) return;
    let cancelled = false;
    void import("signature_pad").then(({ default: SignaturePad }) => {
      if (cancelled || !canvas.current) return;
      const element = canvas.current;
      const ratio = Math.max(window.devicePixelRatio || 1, 1);
      element.width = element.offsetWidth * ratio;
      element.height = element.offsetHeight * ratio;
      element.getContext("2d")?.scale(ratio, ratio);
      const instance = new SignaturePad(element, { backgroundColor: "rgb(255,255,255)" });
      instance.addEventListener("endStroke", () => setValue(instance.isEmpty() ? "" : instance.toDataURL("image/png")));
      pad.current = instance;
    });
    return () => {
      cancelled = true;
      pad.current?.off();
      pad.current = null;
    };
  }, [drawing]);
  const typedId = `${idPrefix}-signature-typed`;
  const typed = (
    <div className="field">
      <label htmlFor={typedId}>Type your full name as your signature</label>
      <input
        id={typedId}
        name={name}
        type="text"
        autoComplete="name"
        defaultValue={typedBefore}
        aria-describedby={errorId}
        aria-invalid={errors?.length ? true : undefined}
      />
    </div>
  );
  if (!enhanced) {
    return (
      <>
        {typed}
        <ErrorList id={errorId} errors={errors} />
      </>
    );
  }
  return (
    <fieldset className="field signature-field">
      <legend>How do you sign?</legend>
      <div className="choice-row">
        {(["type", "draw"] as const).map((option) => (
          <label key={option}>
            <input
              type="radio"
              name={`${idPrefix}-sign-mode`}
              value={option}
              checked={mode === option}
              onChange={() => setMode(option)}
            />
            {option === "type" ? "Type my name" : "Draw my signature"}
          </label>
        ))}
      </div>
      {mode === "type" ? (
        typed
      ) : (
        <div className="field">
          <span id={`${idPrefix}-signature-label`} className="field-label">
            Draw your signature
          </span>
          <canvas
            ref={canvas}
            className="signature-canvas"
            role="img"
            aria-labelledby={`${idPrefix}-signature-label`}
            aria-describedby={errorId}
            data-testid="signature-canvas"
          />
          <input type="hidden" name={name} value={value} />
          <div className="row">
            <button
              type="button"
              className="button button-small"
              onClick={() => {
                pad.current?.clear();
                setValue("");
              }}
            >
              Clear
            </button>
          </div>
        </div>
      )}
      <ErrorList id={errorId} errors={errors} />
    </fieldset>
  );
}
