// The re-rating's summary as the operator API answers it: a finished re-rating job's result.
import { z } from "zod";

const money = (description: string) => z.string().meta({ description });
export const ReratingSchema = z
  .object({
    organizations: z.int().min(0).meta({ description: "Organizations whose bill the new price moved." }),
    events: z.int().min(0).meta({ description: "Events of open cycles re-priced by the new price." }),
    before_total: money("Those events' total cost before, in USD (exact)."),
    after_total: money("Their total cost after, in USD (exact)."),
    corrections: z
      .array(
        z.object({
          organization_uuid: z.string(),
          billing_cycle_uuid: z.uuid().meta({ description: "The closed cycle corrected." }),
          period_start: z.iso.date(),
          period_end: z.iso.date(),
          events: z
            .int()
            .min(0)
            .meta({ description: "The closed cycle's events the new price prices differently." }),
          lines: z.int().min(0).meta({ description: "Correction lines billed in the open cycle." }),
          amount: money("Their sum in USD (exact; negative: a credit)."),
        }),
      )
      .meta({ description: "Closed cycles never change: their difference is billed in the open cycle." }),
  })
  .meta({ id: "PriceRerating" });
