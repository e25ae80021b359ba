/**
 * Short names for the generated wire types, so `components["schemas"][…]` appears only here.
 * Every request and response shape comes from openapi/ through generated/api.d.ts; none is written by hand.
 */
import type { components, operations, paths } from '#generated/api.d.ts';

type Schemas = components['schemas'];

export type { paths, operations };
export type MessageRequest = Schemas['MessageRequest'];
export type CountTokensRequest = Schemas['CountTokensRequest'];
export type CountTokensResponse = Schemas['CountTokensResponse'];
export type MessageParam = Schemas['MessageParam'];
export type UserMessageParam = Schemas['UserMessageParam'];
export type AssistantMessageParam = Schemas['AssistantMessageParam'];
export type SystemMessageParam = Schemas['SystemMessageParam'];
export type UnknownRoleMessageParam = Schemas['UnknownRoleMessageParam'];
export type ContentBlockParam = Schemas['ContentBlockParam'];
export type SystemContentBlockParam = Schemas['SystemContentBlockParam'];
export type UnknownContentBlockParam = Schemas['UnknownContentBlockParam'];
export type TextBlockParam = Schemas['TextBlockParam'];
export type ImageBlockParam = Schemas['ImageBlockParam'];
export type DocumentBlockParam = Schemas['DocumentBlockParam'];
export type ToolUseBlockParam = Schemas['ToolUseBlockParam'];
export type ToolResultBlockParam = Schemas['ToolResultBlockParam'];
export type ThinkingBlockParam = Schemas['ThinkingBlockParam'];
export type RedactedThinkingBlockParam = Schemas['RedactedThinkingBlockParam'];
export type CacheControl = Schemas['CacheControl'];
export type GatewayCacheControl = Schemas['GatewayCacheControl'];
export type ToolDefinition = Schemas['ToolDefinition'];
export type CustomTool = Schemas['CustomTool'];
export type ToolChoice = Schemas['ToolChoice'];
export type ThinkingConfig = Schemas['ThinkingConfig'];
export type OutputConfig = Schemas['OutputConfig'];
export type ProviderPreferences = Schemas['ProviderPreferences'];
export type Plugin = Schemas['Plugin'];
export type AutoRouterPlugin = Schemas['AutoRouterPlugin'];
export type ResponseHealingPlugin = Schemas['ResponseHealingPlugin'];
export type ContextCompressionPlugin = Schemas['ContextCompressionPlugin'];
export type FileParserPlugin = Schemas['FileParserPlugin'];
export type ModerationPlugin = Schemas['ModerationPlugin'];
export type WebPlugin = Schemas['WebPlugin'];
export type WebFetchPlugin = Schemas['WebFetchPlugin'];
export type PluginReport = Schemas['PluginReport'];
export type StopCondition = Schemas['StopCondition'];
export type GatewayServerTool = Schemas['GatewayServerTool'];
export type GatewayWebSearchTool = Schemas['GatewayWebSearchTool'];
export type GatewayWebFetchTool = Schemas['GatewayWebFetchTool'];
export type GatewayDatetimeTool = Schemas['GatewayDatetimeTool'];
export type GatewayMcpTool = Schemas['GatewayMcpTool'];
export type SearchResultBlockParam = Schemas['SearchResultBlockParam'];
export type Trace = Schemas['Trace'];
export type DataRegion = Schemas['DataRegion'];

export type MessageResponse = Schemas['MessageResponse'];
export type ResponseContentBlock = Schemas['ResponseContentBlock'];
export type TextBlock = Schemas['TextBlock'];
export type ThinkingBlock = Schemas['ThinkingBlock'];
export type ToolUseBlock = Schemas['ToolUseBlock'];
export type ServerToolUseBlock = Schemas['ServerToolUseBlock'];
export type McpToolUseBlock = Schemas['McpToolUseBlock'];
export type ServerToolResultBlock = Schemas['ServerToolResultBlock'];
export type WebSearchToolResultBlock = Schemas['WebSearchToolResultBlock'];
export type WebSearchResult = Schemas['WebSearchResult'];
export type WebFetchToolResultBlock = Schemas['WebFetchToolResultBlock'];
export type DatetimeToolResultBlock = Schemas['DatetimeToolResultBlock'];
export type McpToolResultBlock = Schemas['McpToolResultBlock'];
export type ServerToolResultError = Schemas['ServerToolResultError'];
export type Citation = Schemas['Citation'];
export type StopReason = Schemas['StopReason'];
export type RefusalDetails = Schemas['RefusalDetails'];
export type Usage = Schemas['Usage'];
export type GatewayMetadata = Schemas['GatewayMetadata'];
export type ToolLoopStep = Schemas['ToolLoopStep'];
export type AttemptStatus = Schemas['AttemptStatus'];
export type ResponseHealingReport = Schemas['ResponseHealingReport'];
export type ContextCompressionReport = Schemas['ContextCompressionReport'];
export type FileParserReport = Schemas['FileParserReport'];
export type ModerationReport = Schemas['ModerationReport'];
export type ModerationScreening = Schemas['ModerationScreening'];
export type WebReport = Schemas['WebReport'];
export type WebFetchReport = Schemas['WebFetchReport'];

export type MessageStreamEvent = Schemas['MessageStreamEvent'];
export type MessageStartEvent = Schemas['MessageStartEvent'];
export type ContentBlockStartEvent = Schemas['ContentBlockStartEvent'];
export type ContentBlockDeltaEvent = Schemas['ContentBlockDeltaEvent'];
export type ContentBlockStopEvent = Schemas['ContentBlockStopEvent'];
export type MessageDeltaEvent = Schemas['MessageDeltaEvent'];
export type MessageStopEvent = Schemas['MessageStopEvent'];
export type ErrorEvent = Schemas['ErrorEvent'];

export type ModelList = Schemas['ModelList'];
export type Model = Schemas['Model'];
export type ModelEndpoint = Schemas['ModelEndpoint'];
export type ModelFeatures = Schemas['ModelFeatures'];
export type ModelPricing = Schemas['ModelPricing'];
export type ModelLongContextPricing = Schemas['LongContextPricing'];
export type ModelDataPolicy = Schemas['DataPolicy'];

export type ByokCredential = Schemas['ByokCredential'];
export type ByokCredentialCreate = Schemas['ByokCredentialCreate'];
export type ByokCredentialPatch = Schemas['ByokCredentialPatch'];
export type ByokCredentialEnvelope = Schemas['ByokCredentialEnvelope'];
export type ByokCredentialPage = Schemas['ByokCredentialPage'];
export type ApiKey = Schemas['ApiKey'];
export type ApiKeyCreate = Schemas['ApiKeyCreate'];
export type CreatedApiKey = Schemas['CreatedApiKey'];
export type CreatedApiKeyEnvelope = Schemas['CreatedApiKeyEnvelope'];
export type ApiKeyPage = Schemas['ApiKeyPage'];
export type ApiKeyPatch = Schemas['ApiKeyPatch'];
export type ApiKeyEnvelope = Schemas['ApiKeyEnvelope'];
export type KeyUsage = Schemas['KeyUsage'];
export type Health = Schemas['Health'];

export type ErrorBody = Schemas['ErrorBody'];
export type MessagesErrorBody = Schemas['MessagesErrorBody'];
/** Anthropic's `error.details` object of a `/messages` error. */
export type MessagesErrorDetails = Schemas['MessagesErrorDetails'];
export type AnthropicErrorType = Schemas['AnthropicErrorType'];

export type Generation = Schemas['Generation'];
export type GenerationAttempt = Schemas['GenerationAttempt'];
export type GenerationEnvelope = Schemas['GenerationEnvelope'];
export type GenerationPage = Schemas['GenerationPage'];
export type GenerationStatus = Schemas['GenerationStatus'];
export type GenerationTotals = Schemas['GenerationTotals'];
export type GenerationUsage = Schemas['GenerationUsage'];
export type GenerationWebhookEvent = Schemas['GenerationWebhookEvent'];
export type WorkspaceSettings = Schemas['WorkspaceSettings'];
export type WorkspaceSettingsPatch = Schemas['WorkspaceSettingsPatch'];
export type WorkspaceSettingsEnvelope = Schemas['WorkspaceSettingsEnvelope'];
export type DestinationKind = Schemas['DestinationKind'];
export type OtlpProtocol = Schemas['OtlpProtocol'];
export type ObservabilityDestination = Schemas['ObservabilityDestination'];
export type ObservabilityDestinationCreate = Schemas['ObservabilityDestinationCreate'];
export type ObservabilityDestinationPatch = Schemas['ObservabilityDestinationPatch'];
export type ObservabilityDestinationEnvelope = Schemas['ObservabilityDestinationEnvelope'];
export type ObservabilityDestinationPage = Schemas['ObservabilityDestinationPage'];
