CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`mode` text NOT NULL,
	`secret_hash` text NOT NULL,
	`permissions` text NOT NULL,
	`campaign_ids` text,
	`max_concurrent` integer NOT NULL,
	`requests_per_minute` integer NOT NULL,
	`burst` integer NOT NULL,
	`leads_per_minute` integer NOT NULL,
	`expires_at` integer,
	`disabled` integer DEFAULT false NOT NULL,
	`revoked_at` integer,
	`created` integer NOT NULL,
	`updated` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `api_keys_org` ON `api_keys` (`org_id`);--> statement-breakpoint
CREATE TABLE `campaigns` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`lines` integer NOT NULL,
	`sdrs` text NOT NULL,
	`closers` text NOT NULL,
	`requires_consent` integer NOT NULL,
	`call_now_default` integer NOT NULL,
	`late_minutes` integer NOT NULL,
	`calling_hours_start` text NOT NULL,
	`calling_hours_end` text NOT NULL,
	`max_attempts` integer NOT NULL,
	`retry_minutes` integer NOT NULL,
	`duplicate_window_hours` integer NOT NULL,
	`cooldown_hours` integer NOT NULL,
	`spend_cap_usd` real,
	`created` integer NOT NULL,
	`updated` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `campaigns_org` ON `campaigns` (`org_id`,`id`);--> statement-breakpoint
CREATE TABLE `dnc_entries` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`livemode` integer NOT NULL,
	`phone` text NOT NULL,
	`source` text NOT NULL,
	`reason` text,
	`created` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dnc_entries_phone` ON `dnc_entries` (`org_id`,`livemode`,`phone`);--> statement-breakpoint
CREATE INDEX `dnc_entries_list` ON `dnc_entries` (`org_id`,`livemode`,`id`);--> statement-breakpoint
CREATE TABLE `idempotency_records` (
	`key_id` text NOT NULL,
	`idempotency_key` text NOT NULL,
	`fingerprint` text NOT NULL,
	`status` integer NOT NULL,
	`body` text NOT NULL,
	`created` integer NOT NULL,
	PRIMARY KEY(`key_id`, `idempotency_key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_created` ON `idempotency_records` (`created`);--> statement-breakpoint
CREATE TABLE `orgs` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`timezone` text NOT NULL,
	`rate_usd_per_minute` real NOT NULL,
	`plan_requests_per_minute` integer NOT NULL,
	`recording_enabled` integer NOT NULL,
	`webhook_endpoint_limit` integer NOT NULL,
	`outcome_labels` text NOT NULL,
	`created` integer NOT NULL,
	`updated` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `retired_numbers` (
	`id` text PRIMARY KEY NOT NULL,
	`campaign_id` text NOT NULL,
	`livemode` integer NOT NULL,
	`phone` text NOT NULL,
	`reason` text NOT NULL,
	`created` integer NOT NULL,
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `retired_numbers_unique` ON `retired_numbers` (`campaign_id`,`livemode`,`phone`);--> statement-breakpoint
CREATE TABLE `settings` (
	`name` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
