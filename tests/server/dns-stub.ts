import { createSocket } from "node:dgram";

// A tiny authoritative DNS server on UDP 127.0.0.1 for tests: it answers TXT questions from a
// map (name -> strings) and NXDOMAIN for everything else. Enough for node:dns's Resolver.

export type DnsStub = {
  /** "127.0.0.1:<port>", the form DNS_RESOLVER takes. */
  address: string;
  /** TXT records by lower-case name; change them between lookups. */
  txt: Map<string, string[]>;
  /** Names asked for, in order. */
  asked: string[];
  close(): Promise<void>;
};

const TXT = 16;

/** The question's name, type and where the question section ends. */
function question(msg: Buffer): { name: string; type: number; end: number } | null {
  let at = 12;
  const labels: string[] = [];
  while (at < msg.length) {
    const len = msg[at] ?? 0;
    if (len === 0) {
      at += 1;
      break;
    }
    if (len > 63) return null; // no compression in a question we accept
    labels.push(msg.subarray(at + 1, at + 1 + len).toString("latin1"));
    at += 1 + len;
  }
  if (at + 4 > msg.length) return null;
  return { name: labels.join(".").toLowerCase(), type: msg.readUInt16BE(at), end: at + 4 };
}

function txtRdata(value: string): Buffer {
  const bytes = Buffer.from(value, "utf8");
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length || i === 0; i += 255) {
    const chunk = bytes.subarray(i, i + 255);
    parts.push(Buffer.from([chunk.length]), chunk);
    if (bytes.length === 0) break;
  }
  return Buffer.concat(parts);
}

function answer(msg: Buffer, txt: Map<string, string[]>, asked: string[]): Buffer | null {
  if (msg.length < 12) return null;
  const q = question(msg);
  if (!q) return null;
  asked.push(q.name);
  const values = txt.get(q.name);
  const found = values !== undefined;
  const records = found && q.type === TXT ? values : [];
  const header = Buffer.alloc(12);
  msg.copy(header, 0, 0, 2); // id
  const rd = (msg[2] ?? 0) & 0x01;
  header[2] = 0x84 | rd; // QR, AA, RD as asked
  header[3] = 0x80 | (found ? 0 : 3); // RA, NOERROR or NXDOMAIN
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(records.length, 6);
  const answers = records.map((v) => {
    const rdata = txtRdata(v);
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // the question's name
    rr.writeUInt16BE(TXT, 2);
    rr.writeUInt16BE(1, 4); // IN
    rr.writeUInt32BE(60, 6);
    rr.writeUInt16BE(rdata.length, 10);
    return Buffer.concat([rr, rdata]);
  });
  return Buffer.concat([header, msg.subarray(12, q.end), ...answers]);
}

export async function startDnsStub(): Promise<DnsStub> {
  const socket = createSocket("udp4");
  const txt = new Map<string, string[]>();
  const asked: string[] = [];
  socket.on("message", (msg, from) => {
    const reply = answer(msg, txt, asked);
    if (reply) socket.send(reply, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  const { port } = socket.address();
  return {
    address: `127.0.0.1:${port}`,
    txt,
    asked,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
