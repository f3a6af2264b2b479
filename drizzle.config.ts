import { defineConfig } from "drizzle-kit";

// One schema and one migration set for both PGlite (embedded default) and PostgreSQL.
export default defineConfig({
  dialect: "postgresql",
  schema: "./server/db/schema/index.ts",
  out: "./server/db/migrations",
});
