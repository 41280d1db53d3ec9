/**
 * A byte stream spooled through a temporary file, for answers too large to hold in memory (the CSV
 * exports, the whole MOC list of an admin: docs/decisions/022-records-out.md, 027-slow-clients.md).
 * `fill` appends text as fast as its source gives it (a database cursor inside one snapshot); the
 * stream reads the file behind the writer as fast as the client takes it. So a slow reader never
 * holds the source (its database connection goes back to the pool when the last batch is written),
 * and memory holds a batch and one 64 KiB read, not the answer. The file is removed from its folder
 * as soon as it is opened: nothing is left behind, whatever happens to the process.
 */
import type { FileHandle } from "node:fs/promises";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";

const SPOOL_READ = 64 * 1024;

/** What `fill` is given: append text to the spool; whether the client went away (stop reading). */
export type SpoolWriter = { append: (text: string) => Promise<void>; cancelled: () => boolean };

export type Spool = {
  stream: ReadableStream<Uint8Array>;
  /** Settles when `fill` has ended (written all, failed, or stopped after a cancel); never rejects. */
  filled: Promise<void>;
};

/**
 * Starts `fill` at once and answers the stream that reads what it writes. An error in `fill` (or
 * an answer past `maxBytes`, which `fill` sees as a thrown error) ends the stream with that error
 * after what was written before it. `onEnd` runs once, when the stream is read to its end, fails
 * or is cancelled.
 */
export function spooledStream(
  fill: (writer: SpoolWriter) => Promise<void>,
  options: { maxBytes: number; onEnd?: () => void },
): Spool {
  const encoder = new TextEncoder();
  let file: FileHandle | null = null;
  let written = 0;
  let read = 0;
  let writing = true;
  let failure: unknown = null;
  let cancelled = false;
  let ended = false;
  let wake: (() => void) | null = null;
  let markFilled!: () => void;
  const filled = new Promise<void>((resolve) => (markFilled = resolve));
  const notify = () => {
    wake?.();
    wake = null;
  };
  const finish = async () => {
    if (!ended) {
      ended = true;
      options.onEnd?.();
    }
    const handle = file;
    file = null;
    await handle?.close().catch(() => {});
  };
  const fillInto = async (handle: FileHandle) => {
    const append = async (text: string) => {
      const bytes = encoder.encode(text);
      if (written + bytes.byteLength > options.maxBytes) {
        throw new Error(`The answer is larger than ${options.maxBytes / 1024 / 1024} MiB`);
      }
      await handle.write(bytes, 0, bytes.byteLength, written);
      written += bytes.byteLength;
      notify();
    };
    await fill({ append, cancelled: () => cancelled });
  };

  const stream = new ReadableStream<Uint8Array>({
    async start() {
      try {
        const dir = await fs.mkdtemp(path.join(os.tmpdir(), "cm-spool-"));
        const name = path.join(dir, "answer");
        file = await fs.open(name, "w+", 0o600);
        await fs.rm(dir, { recursive: true, force: true });
      } catch (error) {
        markFilled();
        await finish();
        throw error;
      }
      const handle = file;
      if (cancelled) {
        // Cancelled while the file was being opened: cancel found nothing to close.
        markFilled();
        await finish();
        return;
      }
      fillInto(handle)
        .then(
          () => undefined,
          (error: unknown) => {
            failure = error;
          },
        )
        .finally(() => {
          writing = false;
          markFilled();
          notify();
        });
    },
    async pull(controller) {
      for (;;) {
        if (!file) return;
        if (read < written) {
          const buffer = new Uint8Array(Math.min(SPOOL_READ, written - read));
          const { bytesRead } = await file.read(buffer, 0, buffer.byteLength, read);
          read += bytesRead;
          controller.enqueue(buffer.subarray(0, bytesRead));
          return;
        }
        if (!writing) {
          const error = failure;
          await finish();
          if (error) controller.error(error);
          else controller.close();
          return;
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    async cancel() {
      cancelled = true;
      notify();
      await finish();
    },
  });
  return { stream, filled };
}
