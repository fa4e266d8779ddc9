CREATE TABLE `carrier_calls` (
	`call_id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`carrier` text NOT NULL,
	`carrier_call_id` text,
	`plan` text NOT NULL,
	`state` text NOT NULL,
	`open` integer NOT NULL,
	`created` integer NOT NULL,
	`updated` integer NOT NULL,
	FOREIGN KEY (`call_id`) REFERENCES `calls`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `carrier_calls_sid` ON `carrier_calls` (`carrier_call_id`);--> statement-breakpoint
CREATE INDEX `carrier_calls_open` ON `carrier_calls` (`call_id`) WHERE open = 1;--> statement-breakpoint
CREATE TABLE `org_carriers` (
	`org_id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`account_sid` text NOT NULL,
	`auth_token_sealed` text NOT NULL,
	`caller_ids` text NOT NULL,
	`api_base_url` text NOT NULL,
	`machine_detection` integer NOT NULL,
	`created` integer NOT NULL,
	`updated` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `orgs` ADD `recording_retention_days` integer DEFAULT 90 NOT NULL;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `voicemail` text;--> statement-breakpoint
CREATE INDEX `calls_recorded` ON `calls` (`ended`) WHERE recording_available = 1;