CREATE TABLE `seats` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`person_id` text NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`phone` text NOT NULL,
	`state` text NOT NULL,
	`carrier` text NOT NULL,
	`carrier_call_id` text,
	`conference_sid` text,
	`lead_call_id` text,
	`carrier_state` text NOT NULL,
	`ended_reason` text,
	`created` integer NOT NULL,
	`updated` integer NOT NULL,
	`seated_at` integer,
	`ended_at` integer,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `seats_campaign` ON `seats` (`campaign_id`,`state`,`id`);--> statement-breakpoint
CREATE INDEX `seats_org` ON `seats` (`org_id`,`state`);--> statement-breakpoint
CREATE UNIQUE INDEX `seats_carrier_call` ON `seats` (`carrier_call_id`);--> statement-breakpoint
CREATE INDEX `seats_lead_call` ON `seats` (`lead_call_id`);--> statement-breakpoint
ALTER TABLE `campaigns` ADD `dial_mode` text DEFAULT 'bridge' NOT NULL;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `max_abandon_rate` real DEFAULT 0.03 NOT NULL;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `abandon_message` text;--> statement-breakpoint
ALTER TABLE `calls` ADD `answered_at` integer;--> statement-breakpoint
ALTER TABLE `calls` ADD `connected_at` integer;--> statement-breakpoint
ALTER TABLE `calls` ADD `abandoned` integer;--> statement-breakpoint
CREATE INDEX `calls_ledger` ON `calls` (`campaign_id`,`answered_at`) WHERE answered_at IS NOT NULL;