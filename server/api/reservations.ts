import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import {
  OpenReservationListSchema,
  RESERVATION_IDLE_MINUTES,
  ReleasedReservationSchema,
} from "../../contract/reservations";
import { openReservations, releaseReservation } from "../metering/budgets/reservations-admin";
import type { Db } from "../platform/database";
import { actorOf } from "./audit";
import { EvalRunParamsSchema } from "./fields";
import { adminOrg } from "./route-hooks";
import { ADMIN_ERRORS, failure, json } from "./schemas";

const tags = ["Budgets"];

const ParamsSchema = EvalRunParamsSchema;

const errors = {
  400: failure("Invalid request"),
  ...ADMIN_ERRORS,
};

/**
 * /v1/budgets/reservations: what running eval runs hold against the hard limits, beside the
 * budgets they hold it under, and an administrator's release of one (audited as
 * eval_run.reservation_released). Administrators only; another organization's run is a 404.
 */
export const reservationRoutes: FastifyPluginAsyncZod<{ db: Db }> = async (app, { db }) => {
  app.get(
    "/budgets/reservations",
    {
      config: { auth: "bearer_or_api_key", admin: "see reservations" },
      schema: {
        tags,
        summary: "Open reservations",
        description:
          "The eval runs holding an estimate now (started through POST /v1/eval-runs with one, not finished, " +
          `active in the last ${RESERVATION_IDLE_MINUTES} minutes): who started each, what it holds and until ` +
          "when, the largest first, with how many there are and what they hold together.",
        response: { 200: json("Open reservations", OpenReservationListSchema), ...errors },
      },
    },
    async (req) => openReservations(db, adminOrg(req).org_id),
  );

  app.post(
    "/budgets/reservations/:eval_run_uuid/release",
    {
      config: { auth: "bearer_or_api_key", admin: "release reservations" },
      schema: {
        tags,
        summary: "Release a run's reservation",
        description:
          "Frees what the run holds at once by finishing it, as POST /v1/eval-runs/{id}/finish would: its hold " +
          "no longer counts against any hard limit, and usage it sends afterwards is still recorded (as spend " +
          "beyond its estimate). Recorded in the audit log as eval_run.reservation_released.",
        params: ParamsSchema,
        response: {
          200: json("The released reservation", ReleasedReservationSchema),
          ...errors,
          404: failure("No such run in the organization"),
          409: failure("The run holds no reservation (started without an estimate, finished or expired)"),
        },
      },
    },
    async (req) =>
      releaseReservation(db, adminOrg(req).org_id, req.params.eval_run_uuid, actorOf(req.principal)),
  );
};
