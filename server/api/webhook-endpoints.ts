import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  WEBHOOK_EVENT_ID_HEADER,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_SIGNATURE_HEADER,
} from "../../contract/budgets";
import {
  CreateWebhookEndpointSchema,
  MAX_WEBHOOK_ENDPOINTS,
  UpdateWebhookEndpointSchema,
  WebhookDeliveryPageSchema,
  WebhookDeliveryQuerySchema,
  WebhookDeliverySchema,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
} from "../../contract/webhooks";
import type { Db } from "../platform/database";
import { ApiError } from "../platform/errors";
import type { RateLimits } from "../platform/rate-limits";
import type { Keyring } from "../platform/secrets";
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  retryDelivery,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
} from "../webhooks/endpoints";
import { parseWebhookUrl, resolveWebhookHost, WebhookUrlError } from "../webhooks/url-guard";
import { actorOf } from "./audit";
import { uuidField } from "./fields";
import { decideRate, rateLimitError, sendRateLimitHeaders } from "./rate-limit";
import type { RouteApp } from "./route-deps";
import { adminOrg } from "./route-hooks";
import { ADMIN_ERRORS, failure, json, noContent } from "./schemas";

export type WebhookRouteDeps = {
  db: Db;
  limiter: RateLimits;
  keyring: Keyring;
  allowPrivateUrls: boolean;
  /** Test events and retries by hand per minute per organization (WEBHOOK_SEND_RATE_LIMIT_PER_ORG; 0: off). */
  sendRateLimitPerOrg?: number;
};

/** The default of WEBHOOK_SEND_RATE_LIMIT_PER_ORG. */
export const DEFAULT_WEBHOOK_SEND_RATE_LIMIT = 30;

const tags = ["Webhooks"];
const config = (action: string) => ({ auth: "bearer_or_api_key" as const, admin: action });
const errors = {
  400: failure("Invalid request"),
  ...ADMIN_ERRORS,
};
const oneErrors = { ...errors, 404: failure("No such webhook endpoint in your organization") };

const EndpointParams = z.strictObject({ endpoint_uuid: uuidField("endpoint_uuid") });
const DeliveryParams = EndpointParams.extend({ delivery_uuid: uuidField("delivery_uuid") });

// Names that never answer within this are refused rather than holding the request.
const DNS_TIMEOUT_MS = 5_000;

/** The URL as stored, having passed the SSRF guard (400 with the reason when it does not). */
async function checkedUrl(raw: string, allowPrivate: boolean): Promise<string> {
  try {
    const url = parseWebhookUrl(raw);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new WebhookUrlError(`The host ${url.hostname} does not resolve.`)),
        DNS_TIMEOUT_MS,
      );
    });
    await Promise.race([resolveWebhookHost(url, allowPrivate), timeout]).finally(() => clearTimeout(timer));
    return url.toString();
  } catch (err) {
    if (err instanceof WebhookUrlError) throw new ApiError("invalid_request", err.message);
    throw err;
  }
}

const SIGNING =
  `Every delivery is a POST of the event's JSON, signed in the ${WEBHOOK_SIGNATURE_HEADER} header ` +
  '(`t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`), with the event id in ' +
  `${WEBHOOK_EVENT_ID_HEADER}. A 2xx answer within 10 s is a success; anything else is retried with ` +
  "growing delays (about 30 s, 2 min, 10 min, 1 h, 6 h…) and given up after 8 attempts. See docs/webhooks.md.";

/** The endpoints themselves: list, create, read, change, delete, rotate the signing secret. */
function endpointRoutes(app: RouteApp, deps: WebhookRouteDeps) {
  const { db, keyring, allowPrivateUrls } = deps;
  app.get(
    "/webhook-endpoints",
    {
      config: config("manage webhooks"),
      schema: {
        tags,
        summary: "List webhook endpoints",
        description: `The organization's webhook endpoints, newest first (at most ${MAX_WEBHOOK_ENDPOINTS}). Administrators only.`,
        response: { 200: json("The endpoints", WebhookEndpointListSchema), ...errors },
      },
    },
    async (req) => ({ endpoints: await listEndpoints(db, adminOrg(req).org_id) }),
  );

  app.post(
    "/webhook-endpoints",
    {
      config: config("manage webhooks"),
      schema: {
        tags,
        summary: "Create a webhook endpoint",
        description:
          `Subscribes a URL to event types (${WEBHOOK_EVENT_TYPES.join(", ")}). The answer carries the ` +
          `signing secret (whsec_…), shown only this once. ${SIGNING} Hosts resolving to loopback, private ` +
          "or link-local addresses are refused (400) unless the deployment allows them.",
        body: CreateWebhookEndpointSchema,
        response: {
          201: json("Created; the secret is shown only now", WebhookEndpointWithSecretSchema),
          ...errors,
          409: failure(`The organization already has ${MAX_WEBHOOK_ENDPOINTS} endpoints`),
        },
      },
    },
    async (req, reply) => {
      const org = adminOrg(req).org_id;
      const url = await checkedUrl(req.body.url, allowPrivateUrls);
      const { endpoint, secret } = await createEndpoint(db, keyring, org, actorOf(req.principal), {
        ...req.body,
        url,
      });
      return reply.status(201).send({ ...endpoint, secret });
    },
  );

  app.get(
    "/webhook-endpoints/:endpoint_uuid",
    {
      config: config("manage webhooks"),
      schema: {
        tags,
        summary: "Get a webhook endpoint",
        params: EndpointParams,
        response: { 200: json("The endpoint", WebhookEndpointSchema), ...oneErrors },
      },
    },
    async (req) => getEndpoint(db, adminOrg(req).org_id, req.params.endpoint_uuid),
  );

  app.patch(
    "/webhook-endpoints/:endpoint_uuid",
    {
      config: config("manage webhooks"),
      schema: {
        tags,
        summary: "Change a webhook endpoint",
        description:
          "Changes its url, description, events or enabled. A disabled endpoint's deliveries wait (none are " +
          "attempted) until it is enabled again.",
        params: EndpointParams,
        body: UpdateWebhookEndpointSchema,
        response: { 200: json("The endpoint as changed", WebhookEndpointSchema), ...oneErrors },
      },
    },
    async (req) => {
      const org = adminOrg(req).org_id;
      const url = req.body.url === undefined ? undefined : await checkedUrl(req.body.url, allowPrivateUrls);
      return updateEndpoint(db, org, actorOf(req.principal), req.params.endpoint_uuid, {
        ...req.body,
        ...(url === undefined ? {} : { url }),
      });
    },
  );

  app.delete(
    "/webhook-endpoints/:endpoint_uuid",
    {
      config: config("manage webhooks"),
      schema: {
        tags,
        summary: "Delete a webhook endpoint",
        description: "Deletes the endpoint with its delivery log; its pending deliveries are not sent.",
        params: EndpointParams,
        response: { 204: noContent("Deleted"), ...oneErrors },
      },
    },
    async (req, reply) => {
      await deleteEndpoint(db, adminOrg(req).org_id, actorOf(req.principal), req.params.endpoint_uuid);
      return reply.status(204).send();
    },
  );

  app.post(
    "/webhook-endpoints/:endpoint_uuid/rotate-secret",
    {
      config: config("manage webhooks"),
      schema: {
        tags,
        summary: "Rotate a webhook endpoint's signing secret",
        description:
          "Replaces the signing secret at once: every delivery from now on (retries included) is signed " +
          "with the new one, shown only in this answer.",
        params: EndpointParams,
        response: {
          200: json("The new secret, shown only now", WebhookEndpointWithSecretSchema),
          ...oneErrors,
        },
      },
    },
    async (req) => {
      const r = await rotateSecret(
        db,
        keyring,
        adminOrg(req).org_id,
        actorOf(req.principal),
        req.params.endpoint_uuid,
      );
      return { ...r.endpoint, secret: r.secret };
    },
  );
}

/**
 * /v1/webhook-endpoints: an organization's administrators manage where its events (budget alerts)
 * are POSTed, read each endpoint's delivery log and retry deliveries.
 */
export const webhookEndpointRoutes: FastifyPluginAsyncZod<WebhookRouteDeps> = async (app, deps) => {
  const { db } = deps;
  const sendLimit = deps.sendRateLimitPerOrg ?? DEFAULT_WEBHOOK_SEND_RATE_LIMIT;
  const limiter = sendLimit > 0 ? deps.limiter : null;
  const decided = sendRateLimitHeaders(app);
  // A test event and a retry answer alike: the delivery queued, or why not.
  const sendResponses = {
    202: json("Queued", WebhookDeliverySchema),
    ...oneErrors,
    409: failure("The endpoint is disabled"),
    429: failure(
      "Too many test events and retries in the organization this minute (Retry-After: seconds to wait)",
    ),
  };
  const limitNote = sendLimit
    ? ` At most ${sendLimit} test events and retries a minute per organization (429 with Retry-After beyond).`
    : "";

  /**
   * The organization of an administrator's test or retry call, counted against the organization's
   * limit of such calls (they make the workers send at once); 429 past it, with Retry-After and the
   * RateLimit headers, which every counted answer carries.
   */
  async function countSend(req: FastifyRequest): Promise<string> {
    const org = adminOrg(req).org_id;
    if (!limiter) return org;
    const d = await decideRate(limiter, { key: `webhook-send:org:${org}`, limit: sendLimit }, null);
    if (d) decided.set(req, d);
    if (d && !d.allowed) throw rateLimitError(d);
    return org;
  }

  endpointRoutes(app, deps);

  app.post(
    "/webhook-endpoints/:endpoint_uuid/test",
    {
      config: config("manage webhooks"),
      schema: {
        tags,
        summary: "Send a test event",
        description:
          "Queues a signed webhook.test event to this endpoint (sent at once, retried like any delivery) " +
          "and answers its delivery, which the delivery log then follows. If the endpoint's circuit breaker " +
          `is open, its cool-down ends: the test is the next probe.${limitNote}`,
        params: EndpointParams,
        response: sendResponses,
      },
    },
    async (req, reply) =>
      reply.status(202).send(await sendTestEvent(db, await countSend(req), req.params.endpoint_uuid)),
  );

  app.get(
    "/webhook-endpoints/:endpoint_uuid/deliveries",
    {
      config: config("manage webhooks"),
      schema: {
        tags,
        summary: "Read a webhook endpoint's delivery log",
        description:
          "Its deliveries newest first, in pages, with their status, attempts, last answer and next attempt.",
        params: EndpointParams,
        querystring: WebhookDeliveryQuerySchema,
        response: { 200: json("One page of deliveries", WebhookDeliveryPageSchema), ...oneErrors },
      },
    },
    async (req) =>
      listDeliveries(db, adminOrg(req).org_id, req.params.endpoint_uuid, {
        status: req.query.status,
        page: req.query.page,
        pageSize: req.query.page_size,
      }),
  );

  app.post(
    "/webhook-endpoints/:endpoint_uuid/deliveries/:delivery_uuid/retry",
    {
      config: config("manage webhooks"),
      schema: {
        tags,
        summary: "Retry a delivery",
        description:
          "Makes the delivery due now: a failed one gets one more attempt, a succeeded one is sent again " +
          "(same event id), a pending one skips the rest of its wait (and an open circuit breaker's " +
          `cool-down).${limitNote}`,
        params: DeliveryParams,
        response: sendResponses,
      },
    },
    async (req, reply) =>
      reply
        .status(202)
        .send(
          await retryDelivery(db, await countSend(req), req.params.endpoint_uuid, req.params.delivery_uuid),
        ),
  );
};
