CREATE TABLE `console_sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`user_id` text,
	`csrf_token` text NOT NULL,
	`created` integer NOT NULL,
	`last_seen` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `console_sessions_user` ON `console_sessions` (`user_id`);--> statement-breakpoint
CREATE INDEX `console_sessions_seen` ON `console_sessions` (`last_seen`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`password_hash` text NOT NULL,
	`disabled_at` integer,
	`created` integer NOT NULL,
	`updated` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email` ON `users` (`email`);--> statement-breakpoint
CREATE INDEX `users_org` ON `users` (`org_id`);