/**
 * Record PDFs made off the request thread (docs/decisions/027-slow-clients.md): a worker thread
 * (app/workers/record-pdf.worker.ts) lays the PDF out, so a long record never blocks the event
 * loop that answers everyone else.
 *
 * - One PDF at a time per person, PDF_MAX_CONCURRENT in all per process (429 beyond); the worker
 *   makes one at a time, the others wait their turn.
 * - Budgets: PDF_MAX_PAGES pages (past it the worker stops laying out) and PDF_TIME_SECONDS of
 *   work (past it the thread is terminated and a new one started for the next PDF), and a heap
 *   of WORKER_HEAP_MB; a PDF past a budget is refused with a 422 that points to the print view.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { projectRoot } from "#db/project-root";
import { env } from "~/utils/env.server";
import { DomainError } from "~/utils/errors";
import { slotGroup } from "../shared/person-slots.server";
import type { PrintRecord } from "./record-print.server";

const WORKER_HEAP_MB = 256;
const WORKER_FILE = "app/workers/record-pdf.worker.ts";

type PdfJob = { id: number; record: PrintRecord; maxPages: number };
type PdfResult = { id: number; pdf: Uint8Array<ArrayBuffer> } | { id: number; error: string };

const pdfSlots = slotGroup(
  "record-pdf",
  ({ perUser }) =>
    perUser === 1
      ? "A PDF you asked for is still being made; wait for it to finish, then try again"
      : "Too many PDFs are being made at once; try again in a moment",
  5,
);

/** The PDFs being made or waiting now in this process (tests). */
export const pdfsInUse = () => pdfSlots.inUse();

type Thread = { worker: Worker };
type State = { thread: Thread | null; busy: boolean; queue: (() => void)[]; nextId: number };
// On globalThis: a process that loads this module twice (the dev server's reloads) keeps one worker.
const holder = globalThis as typeof globalThis & { __cmPdfWorker?: State };
const state = (): State => (holder.__cmPdfWorker ??= { thread: null, busy: false, queue: [], nextId: 1 });

function startThread(): Thread {
  const root = projectRoot(import.meta.url);
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  const worker = new Worker(path.join(root, WORKER_FILE), {
    execArgv: ["--import", tsx],
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
  });
  // Idle, it does not keep a stopping process alive.
  worker.unref();
  return { worker };
}

/** Waits for the worker's turn (one PDF at a time), then hands the thread over. */
async function takeThread(): Promise<Thread> {
  const s = state();
  // A waiter is handed the turn by giveBack with `busy` still set.
  if (s.busy) await new Promise<void>((resolve) => s.queue.push(resolve));
  else s.busy = true;
  s.thread ??= startThread();
  return s.thread;
}

function giveBack(thread: Thread, broken: boolean): void {
  const s = state();
  if (broken) {
    if (s.thread === thread) s.thread = null;
    void thread.worker.terminate();
  }
  const next = s.queue.shift();
  if (next) next();
  else s.busy = false;
}

const tooLarge = (what: string) =>
  new DomainError(
    422,
    `This record is too long to make into a PDF (${what}). Open its print view and use your browser's Print to save it as a PDF`,
  );

/** Lays `record` out as a PDF on the worker thread, for `owner`; the PDF's bytes. */
export async function renderRecordPdf(record: PrintRecord, owner: string): Promise<Uint8Array<ArrayBuffer>> {
  const config = env();
  const release = pdfSlots.acquire(owner, { perUser: 1, overall: config.PDF_MAX_CONCURRENT });
  try {
    const thread = await takeThread();
    const id = state().nextId++;
    const budgetMs = config.PDF_TIME_SECONDS * 1000;
    let broken = false;
    try {
      thread.worker.ref();
      return await new Promise<Uint8Array<ArrayBuffer>>((resolve, reject) => {
        const timer = setTimeout(() => {
          broken = true;
          finish();
          reject(tooLarge(`it took longer than ${config.PDF_TIME_SECONDS} seconds`));
        }, budgetMs);
        const onMessage = (result: PdfResult) => {
          if (result.id !== id) return;
          finish();
          if ("pdf" in result) resolve(result.pdf);
          else if (result.error === "pages") reject(tooLarge(`more than ${config.PDF_MAX_PAGES} pages`));
          else reject(new Error(`the PDF could not be made: ${result.error}`));
        };
        const onError = (error: Error) => {
          broken = true;
          finish();
          reject(
            (error as { code?: string }).code === "ERR_WORKER_OUT_OF_MEMORY"
              ? tooLarge("it needs more memory than a PDF may have")
              : error,
          );
        };
        const onExit = () => {
          broken = true;
          finish();
          reject(new Error("the PDF worker stopped"));
        };
        const finish = () => {
          clearTimeout(timer);
          thread.worker.off("message", onMessage);
          thread.worker.off("error", onError);
          thread.worker.off("exit", onExit);
        };
        thread.worker.on("message", onMessage);
        thread.worker.once("error", onError);
        thread.worker.once("exit", onExit);
        thread.worker.postMessage({ id, record, maxPages: config.PDF_MAX_PAGES } satisfies PdfJob);
      });
    } finally {
      if (!broken) thread.worker.unref();
      giveBack(thread, broken);
    }
  } finally {
    release();
  }
}
