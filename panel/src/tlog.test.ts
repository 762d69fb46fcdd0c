import { describe, expect, it } from "vitest";
import { canonical, leafHash, leafHashV1, parse, rollback, rootFromInclusion, verifyConsistency, verifyCosignature, verifySignature } from "./tlog";

// A vector made by the service's Go code (audit.LeafData, audit.LeafHash)
// from this event as the API sends it (HTML-escaped strings, a float
// written 1.50, an exponent, a tab, U+2028).
const apiText = String.raw`{"id":"evt_audit_01a1fd32-3660-722a-ad1b-4f22d9fe2784","timestamp":"2026-11-21T08:21:28.800Z","tenantId":"7c9e6679-7425-40de-944b-e07fc1f90ae7","actor":{"id":"67136993-0b23-4c66-aac0-1816ee8a6c3f","email":"omar.2@acme-contact.example","role":"admin","ip":"198.51.100.7","userAgent":"Mozilla/5.0 \u003cx\u003e \u0026 \u2028"},"action":"update","resource":{"type":"ivr","id":"2bec8061-7974-4fa0-a703-0ebd42b72c7e"},"diff":{"greeting":{"from":"Welcome","to":"Hi\tthere"},"ratio":{"from":1.50,"to":2e3}},"crossTenant":false,"category":"configuration","outcome":"success","requestId":"req_1"}`;
const goLeaf = String.raw`{"action":"update","actor":{"email":"omar.2@acme-contact.example","id":"67136993-0b23-4c66-aac0-1816ee8a6c3f","ip":"198.51.100.7","role":"admin","userAgent":"Mozilla/5.0 <x> & \u2028"},"category":"configuration","crossTenant":false,"diff":{"greeting":{"from":"Welcome","to":"Hi\tthere"},"ratio":{"from":1.50,"to":2e3}},"id":"evt_audit_01a1fd32-3660-722a-ad1b-4f22d9fe2784","outcome":"success","requestId":"req_1","resource":{"id":"2bec8061-7974-4fa0-a703-0ebd42b72c7e","type":"ivr"},"tenantId":"7c9e6679-7425-40de-944b-e07fc1f90ae7","timestamp":"2026-11-21T08:21:28.800Z"}`;
const goHashV1 = "eJM0vgwZTom4+zkN1Bul8pfrn1fIx10ld+BRlcJ0rD8=";
const goHash = "DxClAG/lGuhS4obdKrxQHwN/H47uQzNG1rDU1Wmd0zY="; // audit.LeafHash: the leaf of its entry

const b64 = (b: Uint8Array) => btoa(String.fromCharCode(...b));

describe("the leaf encoding in the browser", () => {
  it("is byte for byte the service's", async () => {
    expect(canonical(parse(apiText))).toBe(goLeaf);
    expect(b64(await leafHash(apiText))).toBe(goHash);
    expect(b64(await leafHashV1(apiText))).toBe(goHashV1);
  });
});

// An independent Merkle tree, from RFC 6962's definitions (MTH, PATH),
// recursive as the RFC writes them.
const enc = new TextEncoder();
async function h(...parts: Uint8Array[]) {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) { all.set(p, o); o += p.length; }
  return new Uint8Array(await crypto.subtle.digest("SHA-256", all));
}
const split = (n: number) => { let k = 1; while (k * 2 < n) k *= 2; return k; };
async function mth(d: Uint8Array[]): Promise<Uint8Array> {
  if (d.length === 1) return h(new Uint8Array([0]), d[0]!);
  const k = split(d.length);
  return h(new Uint8Array([1]), await mth(d.slice(0, k)), await mth(d.slice(k)));
}
async function path(m: number, d: Uint8Array[]): Promise<Uint8Array[]> {
  if (d.length === 1) return [];
  const k = split(d.length);
  return m < k ? [...(await path(m, d.slice(0, k))), await mth(d.slice(k))] : [...(await path(m - k, d.slice(k))), await mth(d.slice(0, k))];
}

describe("inclusion proofs in the browser", () => {
  it("lead to the root for every leaf of trees of 1 to 17 leaves, and a changed hash does not", async () => {
    for (let n = 1; n <= 17; n++) {
      const d = Array.from({ length: n }, (_, i) => enc.encode(`leaf ${i}`));
      const root = await mth(d);
      for (let m = 0; m < n; m++) {
        const leaf = await h(new Uint8Array([0]), d[m]!);
        const proof = await path(m, d);
        expect(b64((await rootFromInclusion(m, n, leaf, proof))!)).toBe(b64(root));
        if (proof.length) {
          const bad = proof.map((p, i) => (i === 0 ? p.map((x, j) => (j === 0 ? x ^ 1 : x)) : p));
          expect(b64((await rootFromInclusion(m, n, leaf, bad)) ?? new Uint8Array())).not.toBe(b64(root));
        }
      }
      expect(await rootFromInclusion(n, n, new Uint8Array(32), [])).toBeNull();
    }
  });
});

// A checkpoint signed by golang.org/x/mod/sumdb/note (the service's
// signer) under its origin's name, with a key whose base64 holds "+":
// the browser once cut the key at it, and the check then failed or threw
// (found by the panel's browser check, which failed in the runs whose
// fresh key had one). The same key under the deployment's name covers
// every tenant's origin (audit/logkeys.go); under another tenant's
// origin it covers none of this one's.
const vkey = "auditlog.local+a59b4cae+ATTtup+x7yKvq5tmuBHR7xv8rNGYQB545WHsY9xNqIA7";
const tenantKey = "auditlog.local/tenants/7c9e6679-7425-40de-944b-e07fc1f90ae7+8de3fca5+ATTtup+x7yKvq5tmuBHR7xv8rNGYQB545WHsY9xNqIA7";
const otherTenantKey = "auditlog.local/tenants/00000000-0000-4000-8000-000000000000+39ae9f02+ATTtup+x7yKvq5tmuBHR7xv8rNGYQB545WHsY9xNqIA7";
const signed = "auditlog.local/tenants/7c9e6679-7425-40de-944b-e07fc1f90ae7\n3\nq6AeN0GCfNXx+vDSpZ6J1dBR/Z+xq0rOPmdEP20s3x0=\n\n— auditlog.local/tenants/7c9e6679-7425-40de-944b-e07fc1f90ae7 jeP8pQeCRicPdRlxW13N3ygDgaFzohcWLuR+8C+WZR/4B3Gzg1IrzSW4hRFo1HPOCYiQhYniSFW0CsR31FAkfazGkAI=\n";

describe("checkpoint signatures in the browser", () => {
  it("verify with a key whose base64 holds a plus, under the deployment's name or the tenant's origin", async () => {
    expect(await verifySignature(signed, vkey)).toBe("valid");
    expect(await verifySignature(signed, tenantKey)).toBe("valid");
  });
  it("fail on a changed checkpoint, another key name or a malformed key, without throwing", async () => {
    expect(await verifySignature(signed.replace("\n3\n", "\n4\n"), vkey)).toBe("invalid");
    expect(await verifySignature(signed, vkey.replace("auditlog.local", "other.example"))).toBe("invalid");
    expect(await verifySignature(signed, otherTenantKey)).toBe("invalid");
    expect(await verifySignature(signed, "auditlog.local+394c58a0+A!")).toBe("invalid");
    expect(await verifySignature(signed, "auditlog.local+394c58a0+AWJYjw1yEcG0YuK")).toBe("unchecked"); // too short for a key
  });
});

// A checkpoint signed by note and cosigned by torchwood's
// CosignatureSigner (litewitness's signer), made by Go.
const witnessKey = "witness.example/w1+8cc09bc4+BNTOAlJni3RxrNcODqZCZs81T4+jVli/RR4MH71a9R89";
const cosigned = "auditlog.local/tenants/7c9e6679-7425-40de-944b-e07fc1f90ae7\n3\nq6AeN0GCfNXx+vDSpZ6J1dBR/Z+xq0rOPmdEP20s3x0=\n\n— auditlog.local/tenants/7c9e6679-7425-40de-944b-e07fc1f90ae7 gOxmy537FYcXGvE84Rbj5LCGmznR7kyjBrTgiH83y+rvB79yAISxuxXsAOfBncxPEDl37w24ZrNXbsNaK8fKyDVdnAE=\n— witness.example/w1 jMCbxAAAAABrCBx0GcK6lAvREu39Ibwx7sxL4s/uzYuzQ6JaWl3TafK/MOE7VBH24ocfnNWFY0ugFL5Bc6lzUHI+SVWV5Fiyp9WKCQ==\n";

describe("witness cosignatures in the browser", () => {
  it("verify a cosignature/v1 line made by torchwood", async () => {
    expect(await verifyCosignature(cosigned, witnessKey)).toBe("valid");
  });
  it("fail on another checkpoint, a missing cosignature, or a log key given as a witness key", async () => {
    expect(await verifyCosignature(cosigned.replace("\n3\n", "\n4\n"), witnessKey)).toBe("invalid");
    expect(await verifyCosignature(cosigned.split("— witness")[0]!, witnessKey)).toBe("invalid");
    expect(await verifyCosignature(cosigned, "auditlog.local/tenants/7c9e6679-7425-40de-944b-e07fc1f90ae7+80ec66cb+AThjIJ2aHV3/mmqKkpwKL/mVkOsIbQxRgF/BriVoSAA3")).toBe("invalid");
  });
});

// RFC 6962's SUBPROOF, recursive as the RFC writes it: an independent
// consistency proof of the first m leaves of d.
async function subproof(m: number, d: Uint8Array[], b: boolean): Promise<Uint8Array[]> {
  const n = d.length;
  if (m === n) return b ? [] : [await mth(d)];
  const k = split(n);
  if (m <= k) return [...(await subproof(m, d.slice(0, k), b)), await mth(d.slice(k))];
  return [...(await subproof(m - k, d.slice(k), false)), await mth(d.slice(0, k))];
}

describe("consistency proofs in the browser", () => {
  it("join every earlier tree to every later one of up to 13 leaves, and a changed hash does not", async () => {
    for (let n = 1; n <= 13; n++) {
      const d = Array.from({ length: n }, (_, i) => enc.encode(`leaf ${i}`));
      const root = await mth(d);
      for (let m = 1; m <= n; m++) {
        const old = await mth(d.slice(0, m));
        const proof = m === n ? [] : await subproof(m, d, true);
        expect(await verifyConsistency(m, n, old, root, proof)).toBe(true);
        if (proof.length) {
          const bad = proof.map((p, i) => (i === proof.length - 1 ? p.map((x, j) => (j === 0 ? x ^ 1 : x)) : p));
          expect(await verifyConsistency(m, n, old, root, bad)).toBe(false);
          expect(await verifyConsistency(m, n, root, root, proof)).toBe(false);
        }
      }
    }
  });
});

describe("the browser's memory of the log", () => {
  it("keeps the largest checkpoint verified and names a rollback, a fork and an unjoined tree", async () => {
    const d = Array.from({ length: 9 }, (_, i) => enc.encode(`leaf ${i}`));
    const cp = async (n: number) => ({ origin: "auditlog.test/tenants/t", size: n, root: b64(await mth(d.slice(0, n))) });
    const items = new Map<string, string>();
    const store = { getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v) };
    const honest = async (from: number, to: number) => (await subproof(from, d.slice(0, to), true)).map(b64);
    const K = "auditlog.test+01234567+key";
    expect(await rollback(store, await cp(5), K, honest)).toBeNull();
    expect(await rollback(store, await cp(9), K, honest)).toBeNull();
    expect(JSON.parse(items.get(`auditlog.verified:auditlog.test/tenants/t:${K}`)!).size).toBe(9);
    expect(await rollback(store, await cp(7), K, honest)).toBeNull(); // an earlier state, proven: no rollback
    expect(await rollback(store, await cp(7), K, async () => null)).toMatch(/rollback/); // the service cannot prove it
    expect(await rollback(store, { ...(await cp(9)), root: b64(await mth(d.slice(0, 8))) }, K, honest)).toMatch(/fork/);
    expect(JSON.parse(items.get(`auditlog.verified:auditlog.test/tenants/t:${K}`)!).size).toBe(9);
    // Another log of the same origin under another key (started afresh):
    // its own entry, no rollback of the first.
    expect(await rollback(store, await cp(3), "other+00000000+key", async () => null)).toBeNull();
    expect(JSON.parse(items.get(`auditlog.verified:auditlog.test/tenants/t:${K}`)!).size).toBe(9);
  });
});
