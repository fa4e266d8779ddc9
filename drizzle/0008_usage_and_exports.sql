CREATE TABLE `exports` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`livemode` integer NOT NULL,
	`key_id` text NOT NULL,
	`export_type` text NOT NULL,
	`filters` text NOT NULL,
	`status` text NOT NULL,
	`row_count` integer DEFAULT 0 NOT NULL,
	`file_path` text,
	`error` text,
	`created` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `exports_org` ON `exports` (`org_id`,`livemode`,`id`);--> statement-breakpoint
CREATE INDEX `exports_expiry` ON `exports` (`status`,`expires_at`);--> statement-breakpoint
CREATE TABLE `usage_daily` (
	`org_id` text NOT NULL,
	`livemode` integer NOT NULL,
	`day` text NOT NULL,
	`dimension` text NOT NULL,
	`dimension_id` text NOT NULL,
	`requests` integer DEFAULT 0 NOT NULL,
	`leads_added` integer DEFAULT 0 NOT NULL,
	`calls` integer DEFAULT 0 NOT NULL,
	`calls_connected` integer DEFAULT 0 NOT NULL,
	`minutes` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`org_id`, `livemode`, `day`, `dimension`, `dimension_id`),
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `calls` ADD `usage_counted` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `calls_uncounted` ON `calls` (`id`) WHERE status = 'ended' AND usage_counted = 0;