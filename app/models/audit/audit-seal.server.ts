/**
 * The seal of the audit trail (docs/decisions/025-keyed-audit-chain.md): every chain's head (its
 * length and last hash) at one moment, keyed with AUDIT_KEY, kept outside the database as
 * DATA_DIR/seals/<day>.json. This module is the seal's format and how one is read and checked;
 * the daily run that writes one and announces it to the admins is app/models/ops/audit-seal-day.server.ts.
 * Verify then checks each chain still holds every head a seal holds: a tail removed, or a chain
 * rewritten, before the seal shows even to someone who also rolled its stored head back.
 */
import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { env } from "~/utils/env.server";
import { keyById, keyedHash, type ChainName } from "./audit-chain.server";

export const SEAL_FORMAT = "change-management audit seal 1";

/** The folder of the seals (DATA_DIR/seals). */
export const sealFolder = () => path.join(env().DATA_DIR, "seals");

export type SealHead = [chain: ChainName, recordId: string, seq: number, hash: string];

export type Seal = {
  format: typeof SEAL_FORMAT;
  day: string;
  sealedAt: string;
  keyId: string;
  chains: number;
  entries: number;
  heads: SealHead[];
  mac: string;
};

/** What a seal's MAC covers: everything in it but the MAC. */
export const sealContent = (seal: Omit<Seal, "mac">) =>
  JSON.stringify([seal.format, seal.day, seal.sealedAt, seal.keyId, seal.chains, seal.entries, seal.heads]);

const sealSchema = z.object({
  format: z.literal(SEAL_FORMAT),
  day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  sealedAt: z.string(),
  keyId: z.string(),
  chains: z.number().int().min(0),
  entries: z.number().int().min(0),
  heads: z.array(z.tuple([z.string().min(1), z.uuid(), z.number().int().min(1), z.string()])),
  mac: z.string(),
});

/** A seal file read and checked: well formed, keyed with a key AUDIT_KEY holds. Throws with the problem. */
export async function readSeal(file: string): Promise<Seal> {
  let data: unknown;
  try {
    data = JSON.parse(await fs.readFile(file, "utf8"));
  } catch {
    throw new Error("it is not a seal (unreadable JSON)");
  }
  const parsed = sealSchema.safeParse(data);
  if (!parsed.success) throw new Error("it is not a seal (unexpected content)");
  const seal = parsed.data as Seal;
  const key = keyById(seal.keyId);
  if (!key) throw new Error(`it was keyed with audit key ${seal.keyId}, which AUDIT_KEY does not hold`);
  if (keyedHash(key, sealContent(seal)) !== seal.mac) {
    throw new Error("its MAC does not match its content (the file was changed)");
  }
  return seal;
}
