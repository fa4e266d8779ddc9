DROP INDEX `leads_campaign_phone`;--> statement-breakpoint
DROP INDEX `leads_campaign_external`;--> statement-breakpoint
DROP INDEX `leads_org_external`;--> statement-breakpoint
DROP INDEX `leads_org_phone`;--> statement-breakpoint
CREATE UNIQUE INDEX `leads_org_phone_campaign` ON `leads` (`org_id`,`livemode`,`phone`,`campaign_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `leads_org_external_campaign` ON `leads` (`org_id`,`livemode`,`external_id`,`campaign_id`) WHERE external_id IS NOT NULL;