/** A record's files: the list (with who, when, size, type and SHA-256), upload and remove. */
import { Form } from "~/components/form";
import type { AttachmentView } from "~/models/attachments.server";
import { ErrorList, SubmitButton } from "./forms";
import { fileSize, utc } from "./record-print";

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

export function AttachmentUpload({ types, error }: { types: string[]; error: string | null }) {
  return (
    <Form method="post" encType="multipart/form-data" className="stack">
      <div className="field">
        <label htmlFor="attachment-file">Attach a file</label>
        <input
          id="attachment-file"
          name="file"
          type="file"
          accept={types.map((t) => `.${t}`).join(",")}
          aria-describedby="attachment-hint attachment-error"
          aria-invalid={error ? true : undefined}
        />
        <p id="attachment-hint" className="hint">
          {types.join(", ").toUpperCase()} — at most 10 MB. Files are kept with the record; removing one hides it and
          the history says who removed it.
        </p>
        <ErrorList id="attachment-error" errors={error ? [error] : null} />
      </div>
      <div className="form-actions">
        <SubmitButton pendingText="Uploading…">Upload</SubmitButton>
      </div>
    </Form>
  );
}
