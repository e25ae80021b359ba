ALTER TABLE "generations" DROP CONSTRAINT "generations_account_id_accounts_id_fk";
--> statement-breakpoint
ALTER TABLE "generations" ALTER COLUMN "trace" SET DATA TYPE json, ALTER COLUMN "attempts" SET DATA TYPE json, ALTER COLUMN "tool_steps" SET DATA TYPE json, ALTER COLUMN "moderation" SET DATA TYPE json, ALTER COLUMN "prompt" SET DATA TYPE json, ALTER COLUMN "completion" SET DATA TYPE json;
