DROP INDEX "generations_account_created_idx";--> statement-breakpoint
ALTER TABLE "generations" DROP CONSTRAINT "generations_pkey", ADD CONSTRAINT "generations_pkey" PRIMARY KEY("account_id","id");
