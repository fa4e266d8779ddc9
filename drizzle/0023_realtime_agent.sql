ALTER TABLE `orgs` ADD `ai_prices` text;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `ai_agent_key` text;--> statement-breakpoint
ALTER TABLE `calls` ADD `ai_instructions` text;--> statement-breakpoint
ALTER TABLE `calls` ADD `ai_usage` text;--> statement-breakpoint
ALTER TABLE `calls` ADD `ai_seconds` real;--> statement-breakpoint
ALTER TABLE `usage_daily` ADD `ai_minutes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `usage_daily` ADD `ai_cost_micros` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `usage_daily` ADD `ai_unpriced_calls` integer DEFAULT 0 NOT NULL;