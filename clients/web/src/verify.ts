// Checks anyone can run in the page: each receipt is an Ed25519 signature (WebCrypto) by a key the
// gateway publishes, over exactly the bytes gateway/domain/receipts.py defines; a revealed seed
// hashes to the commitment published when the match was created.

export interface ReceiptFields {
  keyId: string;
  version: bigint | number;
  headHash: string;
  signature: Uint8Array;
  tenant: string;
  matchId: string;
}

const encoder = new TextEncoder();
const RECEIPT_DOMAIN = encoder.encode("guildhall-receipt-v1");
const SEED_DOMAIN = encoder.encode("guildhall-seed-v1");

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Length-prefixed fields (8-byte big-endian lengths): no two tuples share an encoding. */
function framed(fields: string[]): Uint8Array {
  return concat(
    fields.flatMap((field) => {
      const bytes = encoder.encode(field);
      const length = new Uint8Array(8);
      new DataView(length.buffer).setBigUint64(0, BigInt(bytes.length));
      return [length, bytes];
    }),
  );
}

/** The exact bytes a receipt signs. */
export function receiptMessage(tenant: string, matchId: string, version: bigint | number, headHash: string): Uint8Array {
  return concat([RECEIPT_DOMAIN, framed([tenant, matchId, String(version), headHash])]);
}

const imported = new Map<string, Promise<CryptoKey>>();

function publicKey(raw: Uint8Array): Promise<CryptoKey> {
  const id = Array.from(raw, (b) => b.toString(16).padStart(2, "0")).join("");
  let key = imported.get(id);
  if (!key) {
    key = crypto.subtle.importKey("raw", raw as BufferSource, { name: "Ed25519" }, false, ["verify"]);
    imported.set(id, key);
  }
  return key;
}

/** Whether the receipt is a valid signature by the published key it names (unknown key: false). */
export async function verifyReceipt(receipt: ReceiptFields, keys: ReadonlyMap<string, Uint8Array>): Promise<boolean> {
  const raw = keys.get(receipt.keyId);
  if (!raw || receipt.signature.length !== 64) return false;
  const message = receiptMessage(receipt.tenant, receipt.matchId, receipt.version, receipt.headHash);
  try {
    return await crypto.subtle.verify({ name: "Ed25519" }, await publicKey(raw), receipt.signature as BufferSource, message as BufferSource);
  } catch {
    return false;
  }
}

export function hexToBytes(hex: string): Uint8Array {
  if (hex.length % 2 !== 0 || /[^0-9a-f]/i.test(hex)) throw new Error("not hex");
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function bytesToHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The public commitment to a seed: hex sha256("guildhall-seed-v1" + seed). */
export async function seedCommitment(seed: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", concat([SEED_DOMAIN, seed]) as BufferSource);
  return bytesToHex(new Uint8Array(digest));
}

/** Whether a revealed seed (hex text, as match_ended carries it) is the one committed to. */
export async function verifySeed(seed: string | Uint8Array, commitment: string): Promise<boolean> {
  try {
    const bytes = typeof seed === "string" ? hexToBytes(seed) : seed;
    return (await seedCommitment(bytes)) === commitment.toLowerCase();
  } catch {
    return false;
  }
}
