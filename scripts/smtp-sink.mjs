// A local SMTP server for the browser tests: every message it receives is written as a .eml file
// into MAIL_DIR, which the tests read like a mailbox. Usage: MAIL_DIR=dir node scripts/smtp-sink.mjs PORT
import { writeFileSync } from "node:fs";
import { SMTPServer } from "smtp-server";

let n = 0;
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS"],
  logger: false,
  onData(stream, _session, done) {
    const chunks = [];
    stream.on("data", (c) => chunks.push(c));
    stream.on("end", () => {
      const name = `${Date.now()}-${String(++n).padStart(5, "0")}.eml`;
      writeFileSync(`${process.env.MAIL_DIR}/${name}`, Buffer.concat(chunks));
      done();
    });
  },
});
server.listen(Number(process.argv[2]), "127.0.0.1");
