CREATE TABLE `call_transcripts` (
	`call_id` text PRIMARY KEY NOT NULL,
	`lines` text NOT NULL,
	FOREIGN KEY (`call_id`) REFERENCES `calls`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
ALTER TABLE `calls` ADD `transcript_available` integer DEFAULT false NOT NULL;--> statement-breakpoint
INSERT INTO `call_transcripts` (`call_id`, `lines`) SELECT `id`, `transcript` FROM `calls` WHERE json_array_length(`transcript`) > 0;--> statement-breakpoint
UPDATE `calls` SET `transcript_available` = 1 WHERE json_array_length(`transcript`) > 0;
