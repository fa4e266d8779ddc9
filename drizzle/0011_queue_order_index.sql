DROP INDEX `leads_queued`;--> statement-breakpoint
CREATE INDEX `leads_queued` ON `leads` (`queue_key`,`id`,`campaign_id`,`livemode`) WHERE status = 'queued';