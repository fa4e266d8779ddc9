ALTER TABLE `campaigns` ADD `ai_agent` text;--> statement-breakpoint
ALTER TABLE `calls` ADD `ai_seated` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `calls` ADD `ai_first_audio_ms` integer;