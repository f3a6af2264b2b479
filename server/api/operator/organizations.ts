import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { pageNumberParam, pageSizeParam } from "../../../contract/paging";
import {
  listOrganizations,
  type OrganizationSummary,
  organizationSummary,
} from "../../metering/billing/organizations";
import { ApiError } from "../../platform/errors";
import { textField } from "../fields";
import type { OperatorRouteDeps } from "../route-deps";
import { failure, json } from "../schemas";
import { OPERATOR_ERRORS, OrganizationParamsSchema, organizationOf } from "./common";
import { installOperatorGuard, operatorRoute } from "./guard";

const OrganizationSchema = z
  .object({
    organization_uuid: z.string(),
    name: z.string(),
    slug: z.string(),
    created_at: z.iso.datetime(),
    member_count: z.int().min(0),
  })
  .meta({ id: "OperatorOrganization" });

const OrganizationListSchema = z
  .object({
    organizations: z.array(OrganizationSchema),
    total_count: z.int().min(0).meta({ description: "Organizations matching the search, on every page." }),
  })
  .meta({ id: "OperatorOrganizationList" });

const ListQuerySchema = z.strictObject({
  page: pageNumberParam(),
  page_size: pageSizeParam(100, 20),
  search: textField("search", 200).optional().meta({ description: "Part of the name or slug, any case." }),
});

const organizationJson = (o: OrganizationSummary) => ({
  organization_uuid: o.id,
  name: o.name,
  slug: o.slug,
  created_at: o.createdAt.toISOString(),
  member_count: o.memberCount,
});

/** /v1/operator/organizations: every organization, for provider operators. */
export const operatorOrganizationRoutes: FastifyPluginAsyncZod<OperatorRouteDeps> = async (app, deps) => {
  installOperatorGuard(app, deps, "list organizations");

  app.get(
    "/operator/organizations",
    operatorRoute({
      summary: "List organizations",
      description: "Provider operators only. Numbered pages by name; `search` matches name or slug.",
      querystring: ListQuerySchema,
      response: { 200: json("One page of organizations", OrganizationListSchema), ...OPERATOR_ERRORS },
    }),
    async (req) => {
      const { page, page_size, search } = req.query;
      const r = await listOrganizations(deps.db, {
        page,
        pageSize: page_size,
        ...(search ? { search } : {}),
      });
      return { organizations: r.organizations.map(organizationJson), total_count: r.total };
    },
  );

  app.get(
    "/operator/organizations/:organization",
    operatorRoute({
      summary: "One organization",
      description: "Provider operators only. Named by its uuid, slug or exact name.",
      params: OrganizationParamsSchema,
      response: {
        200: json("The organization", OrganizationSchema),
        ...OPERATOR_ERRORS,
        404: failure("No such organization"),
      },
    }),
    async (req) => {
      const org = await organizationOf(deps.db, req.params.organization);
      const summary = await organizationSummary(deps.db, org.id);
      if (!summary) throw new ApiError("not_found", "Organization not found.");
      return organizationJson(summary);
    },
  );
};
