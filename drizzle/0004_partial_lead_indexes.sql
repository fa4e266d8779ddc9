DROP INDEX `leads_queue`;--> statement-breakpoint
DROP INDEX `leads_due`;--> statement-breakpoint
DROP INDEX `leads_org_external`;--> statement-breakpoint
CREATE INDEX `leads_queued` ON `leads` (`campaign_id`,`livemode`,`queue_key`,`id`) WHERE status = 'queued';--> statement-breakpoint
CREATE INDEX `leads_waiting_due` ON `leads` (`due_at`) WHERE status IN ('scheduled', 'callback_scheduled');--> statement-breakpoint
CREATE INDEX `leads_org_external` ON `leads` (`org_id`,`livemode`,`external_id`) WHERE external_id IS NOT NULL;