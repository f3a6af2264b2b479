import { Readable } from "node:stream";
import type { FastifyReply } from "fastify";
import { z } from "zod";

// What the routes that answer CSV share: the format parameter, the negotiation, the response
// documented and the attachment sent, so every CSV download reads and behaves alike.

/** `format`: json or csv, the same as asking by the Accept header. */
export const csvFormatParam = z
  .enum(["json", "csv"], { error: "format must be json or csv." })
  .optional()
  .meta({ description: "csv: the same as Accept: text/csv." });

/** CSV when asked by format=csv or by an Accept header that prefers text/csv to JSON. */
export function wantsCsv(format: "json" | "csv" | undefined, accept: string | undefined) {
  if (format) return format === "csv";
  return /\btext\/csv\b/i.test(accept ?? "") && !/\bapplication\/json\b/i.test(accept ?? "");
}

const csvContent = { "text/csv": { schema: z.instanceof(Readable) } };

/** The 200 of a route that answers CSV only: streamed, never serialized. */
export const csvResponse = (description: string) => ({ description, content: csvContent });

/** The 200 of a route that answers JSON, or CSV when asked (wantsCsv). */
export const jsonOrCsvResponse = <S extends z.ZodType>(description: string, schema: S) => ({
  description,
  content: { "application/json": { schema }, ...csvContent },
});

/** Sends `body` as a CSV download named `filename`. */
export const sendCsv = (reply: FastifyReply, filename: string, body: Readable) =>
  reply
    .header("content-type", "text/csv; charset=utf-8")
    .header("content-disposition", `attachment; filename="${filename}"`)
    .send(body);
