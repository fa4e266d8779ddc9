CREATE TABLE `calls` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`lead_id` text NOT NULL,
	`livemode` integer NOT NULL,
	`key_id` text,
	`direction` text NOT NULL,
	`status` text NOT NULL,
	`outcome` text,
	`outcome_label` text,
	`note` text,
	`duration_seconds` integer,
	`started` integer NOT NULL,
	`answered` integer,
	`ended` integer,
	`updated` integer NOT NULL,
	`answered_by` text,
	`handled_by` text NOT NULL,
	`owner` text,
	`tth_seconds` real,
	`callback_at` integer,
	`intent` text,
	`recording_available` integer DEFAULT false NOT NULL,
	`transcript` text NOT NULL,
	`started_by` text NOT NULL,
	`revision` integer DEFAULT 0 NOT NULL,
	`outcome_due_at` integer,
	`carrier` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`lead_id`) REFERENCES `leads`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `calls_org_list` ON `calls` (`org_id`,`livemode`,`id`);--> statement-breakpoint
CREATE INDEX `calls_org_outcome` ON `calls` (`org_id`,`livemode`,`outcome`,`id`);--> statement-breakpoint
CREATE INDEX `calls_campaign_list` ON `calls` (`campaign_id`,`livemode`,`id`);--> statement-breakpoint
CREATE INDEX `calls_lead` ON `calls` (`lead_id`,`id`);--> statement-breakpoint
CREATE INDEX `calls_open` ON `calls` (`status`);--> statement-breakpoint
CREATE INDEX `calls_outcome_due` ON `calls` (`outcome_due_at`);--> statement-breakpoint
ALTER TABLE `leads` ADD `added_by_key_id` text;--> statement-breakpoint
ALTER TABLE `leads` ADD `call_requested_by` text;--> statement-breakpoint
ALTER TABLE `leads` ADD `fail_streak` integer DEFAULT 0 NOT NULL;