/** A record's files: the list (with who, when, size, type and SHA-256), upload and remove. */
import { useRevalidator } from "@remix-run/react";
import { useState, type FormEvent } from "react";
import { Form } from "~/components/form";
import type { AttachmentView } from "~/models/records/attachments.server";
import { ErrorList, SubmitButton } from "./submit";
import { fileSize, utc } from "./record-print";
import { useHydrated } from "./use-hydrated";

export function AttachmentList({ files, canWrite }: { files: AttachmentView[]; canWrite: boolean }) {
  if (files.length === 0) return <p className="muted">No files attached.</p>;
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">File</th>
            <th scope="col">Uploaded</th>
            <th scope="col">Size</th>
            <th scope="col">SHA-256</th>
            {canWrite ? <th scope="col">Remove</th> : null}
          </tr>
        </thead>
        <tbody>
          {files.map((file) => (
            <tr key={file._id}>
              <td>
                <a href={file.url}>{file.name}</a>
                {file.kind === "risk_assessment" ? <span className="badge">Risk assessment</span> : null}
                <br />
                <span className="muted">{file.contentType}</span>
              </td>
              <td>
                {file.uploadedBy?.name ?? "—"}
                <br />
                <span className="muted">{utc(file.uploadedAt)}</span>
              </td>
              <td>{fileSize(file.size)}</td>
              <td>
                <code style={{ fontSize: "0.7rem", overflowWrap: "anywhere" }}>{file.sha256}</code>
              </td>
              {canWrite ? (
                <td>
                  <Form method="post">
                    <input type="hidden" name="id" value={file._id} />
                    <SubmitButton
                      name="intent"
                      value="remove"
                      className="button button-small button-danger"
                      pendingText="Removing…"
                    >
                      Remove <span className="visually-hidden">{file.name}</span>
                    </SubmitButton>
                  </Form>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** How much of a file one request carries (a piece cut by the link is resumed from its last byte). */
const PIECE_BYTES = 1024 * 1024;

type UploadState =
  | { phase: "idle" }
  | { phase: "sending"; sent: number; total: number }
  | { phase: "done"; name: string }
  | { phase: "failed"; message: string };

/**
 * The upload form. Without JavaScript it posts the file (multipart) to the page's action. With
 * JavaScript and `record` given, the file goes by the tus protocol (app/web/resumable-upload.server.ts):
 * in pieces, resumed from the last byte the server holds after a dropped link (retried on its own,
 * and after a reload of the page for the same file), with its progress shown.
 */
export function AttachmentUpload({
  types,
  error,
  record,
}: {
  types: string[];
  error: string | null;
  record?: `moc:${string}` | `pcr:${string}`;
}) {
  const hydrated = useHydrated();
  const revalidator = useRevalidator();
  const [state, setState] = useState<UploadState>({ phase: "idle" });
  const resumable = hydrated && record !== undefined;
  const shownError = state.phase === "failed" ? state.message : error;

  async function upload(event: FormEvent<HTMLFormElement>) {
    if (!resumable) return;
    const input = event.currentTarget.elements.namedItem("file") as HTMLInputElement | null;
    const file = input?.files?.[0];
    if (!file) return; // the page's action says what is missing
    event.preventDefault();
    if (state.phase === "sending") return;
    setState({ phase: "sending", sent: 0, total: file.size });
    const { Upload } = await import("tus-js-client");
    const job = new Upload(file, {
      endpoint: "/tus/attachments",
      chunkSize: PIECE_BYTES,
      retryDelays: [0, 1000, 3000, 5000, 10000, 20000, 30000, 60000],
      metadata: { filename: file.name, record, kind: "file" },
      removeFingerprintOnSuccess: true,
      onProgress: (sent, total) => setState({ phase: "sending", sent, total }),
      onSuccess: () => {
        setState({ phase: "done", name: file.name });
        if (input) input.value = "";
        revalidator.revalidate();
      },
      onError: (failure) => {
        const answer = (failure as { originalResponse?: { getBody(): string } | null }).originalResponse?.getBody();
        setState({ phase: "failed", message: answer || "The upload stopped; choose the file again to go on." });
      },
    });
    // A file this browser began to send before (a reload, a dropped link) goes on from where it stopped.
    const earlier = await job.findPreviousUploads();
    if (earlier[0]) job.resumeFromPreviousUpload(earlier[0]);
    job.start();
  }

  return (
    <Form method="post" encType="multipart/form-data" className="stack" onSubmit={upload}>
      <div className="field">
        <label htmlFor="attachment-file">Attach a file</label>
        <input
          id="attachment-file"
          name="file"
          type="file"
          accept={types.map((t) => `.${t}`).join(",")}
          aria-describedby="attachment-hint attachment-error"
          aria-invalid={shownError ? true : undefined}
        />
        <p id="attachment-hint" className="hint">
          {types.join(", ").toUpperCase()} — at most 10 MB. Files are kept with the record; removing one hides it and
          the history says who removed it.
        </p>
        <ErrorList id="attachment-error" errors={shownError ? [shownError] : null} />
      </div>
      <div role="status" aria-live="polite">
        {state.phase === "sending" ? (
          <p>
            <label htmlFor="attachment-progress">Sending</label>{" "}
            <progress id="attachment-progress" max={state.total} value={state.sent} /> {fileSize(state.sent)} of{" "}
            {fileSize(state.total)}
          </p>
        ) : state.phase === "done" ? (
          <p>{state.name} is attached.</p>
        ) : null}
      </div>
      <div className="form-actions">
        <SubmitButton pendingText="Uploading…">{state.phase === "sending" ? "Uploading…" : "Upload"}</SubmitButton>
      </div>
    </Form>
  );
}
