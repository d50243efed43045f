// Signs a plugin manifest the way shiro-neko's TypeScript original did
// (reference §8.3): ed25519 over JSON.stringify of the manifest without
// "signer" and "signature", keys sorted recursively, no prefix. Run with
// node to remake the fixtures: node sign.mjs
import { generateKeyPairSync, sign } from "node:crypto";
import { writeFileSync } from "node:fs";

const sortKeys = (v) =>
  Array.isArray(v) ? v.map(sortKeys)
  : v && typeof v === "object" ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]))
  : v;

const { publicKey, privateKey } = generateKeyPairSync("ed25519");
const body = {
  name: "no-sql-edits",
  description: "refuses edits to SQL files — «ünïcode» kept as is",
  appendix: "The no-sql-edits plugin refuses edits to .sql files; ask the user.",
  deny: [
    { tools: ["write_file", "edit_file"], pathPattern: "\\.sql$", reason: "SQL files are edited by the DBA" },
    { tools: ["bash"], commandPattern: "^psql\\b", reason: "no database shells" },
  ],
};
const signature = sign(null, Buffer.from(JSON.stringify(sortKeys(body))), privateKey).toString("base64");
writeFileSync("no-sql-edits.json", JSON.stringify({ ...body, signer: "acme", signature }, null, 2) + "\n");
writeFileSync("acme.pub.pem", publicKey.export({ type: "spki", format: "pem" }));
