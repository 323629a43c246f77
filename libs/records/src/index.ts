/**
 * @crm/records: the platform's records, written once for every service.
 * Per record type: its zod schema (`*.schema.ts`), its repository (`*.repository.ts`: kysely
 * functions taking a Trx, all of its SQL), its events (`*.events.ts`) and the batch ingest
 * the import route, MCP and migrate share (`*.ingest.ts`). Depends on @crm/shared, never on a
 * service.
 */
export { ingestResult, type IngestResult, type RecordError } from './ingest-result';

// Leads
export {
  LEAD_ERRORS,
  LEAD_ITEM_KEYS,
  LEAD_TEXT_FIELDS,
  MAX_LEAD_EMAIL,
  MAX_LEAD_TEXT,
  leadImportItemSchema,
  leadResultItemSchema,
  type LeadResultItem,
} from './leads/leads.schema';
export { LEAD_FIELD_ERRORS, MAX_LEAD_SOURCE } from './leads/lead-rules';
export {
  normalizeLead,
  normalizeSource,
  SOURCE_ALIASES,
  DEFAULT_LEAD_SOURCE,
  DEFAULT_LEAD_STATUS,
  type LeadInput,
  type LeadStatus,
  type NormalizeResult,
} from './leads/normalize-lead';
export {
  LEAD_COLUMNS,
  upsertLeads,
  upsertLeadFillingBlanks,
  findLead,
  findLeadsByIdsOrEmails,
  writeLeadsById,
  LeadChangedMeanwhile,
  type LeadRecord,
  findLeadByEmail,
  listLeads,
  leadListQuery,
  insertLead,
  updateLead,
  deleteLead,
  isDuplicateEmail,
  type LeadChange,
  LEAD_SORT_KEYS,
  type LeadSortKey,
  type Lead,
  type LeadColumn,
  type StoredLead,
} from './leads/leads.repository';
export {
  LEAD_EVENT_TYPES,
  LEAD_MODULE,
  leadEvents,
  leadEvent,
  type LeadEventData,
  type LeadEventType,
} from './leads/leads.events';
export { ingestLeads, prepareLeads } from './leads/leads.ingest';
export { FILL_LEAD_SEARCH_TEXTS, indexLeadSearchTexts } from './leads/lead-search-texts.repository';
export {
  leadFilterFields,
  leadListSource,
  whereLeadFilters,
  type LeadFilters,
} from './leads/lead-filters';

// Contacts
export {
  MAX_CONTACT_EXTERNAL_ID,
  MAX_CONTACT_PHONE,
  MAX_CONTACT_TEXT,
  contactChangeSchema,
  contactFilterFields,
  contactInputSchema,
  contactResultItemSchema,
  type ContactChange,
  type ContactFilters,
  type ContactInput,
  type ContactResultItem,
  type ProviderContact,
} from './contacts/contacts.schema';
export {
  CONTACT_COLUMNS,
  CONTACT_SORT_KEYS,
  deleteContact,
  findContact,
  findContactByEmail,
  findContactByExternalId,
  findContactIdByEmail,
  findContactIdByPhone,
  insertContact,
  listContacts,
  lockContact,
  updateContact,
  upsertContact,
  upsertContactFillingBlanks,
  type Contact,
  type ContactColumn,
  type ContactRefusal,
  type ContactSortKey,
  type StoredContact,
} from './contacts/contacts.repository';
export {
  CONTACT_EVENT_TYPES,
  CONTACT_MODULE,
  contactDeletedEvent,
  contactEvent,
  type ContactEventData,
  type ContactEventType,
} from './contacts/contacts.events';
export { ingestContacts } from './contacts/contacts.ingest';

// Products
export {
  MAX_PRODUCT_DESCRIPTION,
  MAX_PRODUCT_NAME,
  MAX_SKU,
  productChangeSchema,
  productInputSchema,
  productResultItemSchema,
  type ProductChange,
  type ProductInput,
  type ProductResultItem,
} from './products/products.schema';
export {
  PRODUCT_COLUMNS,
  findProduct,
  findProductBySku,
  listProducts,
  PRODUCT_SORT_KEYS,
  type ProductFilters,
  type ProductSortKey,
  updateProduct,
  upsertProduct,
  type Product,
  type ProductColumn,
} from './products/products.repository';
export {
  PRODUCT_EVENT_TYPES,
  PRODUCT_MODULE,
  productEvent,
  type ProductEventData,
  type ProductEventType,
} from './products/products.events';
export { ingestProducts } from './products/products.ingest';

// Chat conversations
export {
  CONVERSATION_STATUSES,
  DEFAULT_CHAT_CHANNEL,
  MAX_CONVERSATION_EXTERNAL_ID,
  MAX_CONVERSATION_SUBJECT,
  channelSchema,
  conversationInputSchema,
  conversationResultItemSchema,
  type ConversationInput,
  type ConversationResultItem,
} from './conversations/conversations.schema';
export {
  findConversation,
  findConversationsByExternalId,
  listConversations,
  CONVERSATION_SORT_KEYS,
  type ConversationSortKey,
  touchConversation,
  upsertChannelConversation,
  upsertConversation,
  type Conversation,
  type ConversationFilters,
} from './conversations/conversations.repository';
export {
  CONVERSATION_EVENT_TYPES,
  CONVERSATION_MODULE,
  conversationCreatedEvent,
  type ConversationEventData,
} from './conversations/conversations.events';
export { ingestConversations } from './conversations/conversations.ingest';

// Chat messages
export {
  MAX_MESSAGE_BODY,
  MAX_MESSAGE_EXTERNAL_ID,
  MAX_MESSAGE_SENDER,
  MESSAGE_DIRECTIONS,
  messageInputSchema,
  messageResultItemSchema,
  statusAdvances,
  type MessageDirection,
  type MessageInput,
  type MessageResultItem,
} from './messages/messages.schema';
export {
  MESSAGE_COLUMNS,
  findMessageByExternalId,
  insertMessage,
  listMessages,
  MESSAGE_SORT_KEYS,
  type MessageSortKey,
  setMessageStatus,
  type Message,
} from './messages/messages.repository';
export {
  MESSAGE_EVENT_TYPES,
  MESSAGE_MODULE,
  messageReceivedEvent,
  messageStatusUpdatedEvent,
  type MessageReceivedData,
  type MessageStatusUpdatedData,
} from './messages/messages.events';
export { ingestMessages } from './messages/messages.ingest';

// Deals
export {
  dealChangeSchema,
  dealFilterFields,
  dealInputSchema,
  dealStageSchema,
  type DealChange,
  type DealFilters,
  type DealInput,
} from './deals/deals.schema';
export { DEAL_CURRENCY_PATTERN, DEAL_VALUE_PATTERN, MAX_DEAL_TITLE } from './deals/deal-rules';
export {
  DEAL_COLUMNS,
  contactExists,
  deleteDeal,
  filteredDeals,
  findDeal,
  insertDeal,
  insertDeals,
  isTenantMember,
  leadExists,
  listDeals,
  lockDealStage,
  updateDeal,
  updateDealsById,
  type DealRow,
} from './deals/deals.repository';
export {
  DEAL_EVENT_TYPES,
  DEAL_MODULE,
  dealCreatedEvent,
  dealDeletedEvent,
  dealStageChangedEvent,
  dealUpdatedEvent,
} from './deals/deals.events';

// Activities
export {
  MAX_ACTIVITY_BODY,
  MAX_ACTIVITY_SUBJECT,
  activityInputSchema,
  type ActivityInput,
} from './activities/activities.schema';
export {
  ACTIVITY_COLUMNS,
  findActivity,
  insertActivities,
  listActivities,
  ACTIVITY_SORT_KEYS,
  type ActivitySortKey,
  updateActivitiesById,
  type Activity,
  type ActivityColumn,
  type ActivityFilters,
  type ActivityRow,
  type StoredActivity,
} from './activities/activities.repository';
export {
  ACTIVITY_EVENT_TYPES,
  ACTIVITY_MODULE,
  activityEvent,
} from './activities/activities.events';

// Web forms: the rules of a form's definition (crm-api's schemas and the console's editor)
export {
  FIELD_NAME_PATTERN,
  FIELD_NAME_RULE,
  FIELD_TYPES,
  HONEYPOT_FIELD,
  MAX_FIELD_OPTIONS,
  MAX_FIELD_TEXT,
  MAX_FORM_FIELDS,
  MAX_FORM_NAME,
  MAX_SLUG,
  MAX_SUBMITTED_FIELDS,
  SLUG_PATTERN,
  SLUG_RULE,
  type FieldType,
} from './forms/form-rules';

// Timelines: everything held about a lead or contact, newest first (the REST route and MCP)
export {
  TIMELINE_TYPES,
  TIMELINE_DEFAULT_LIMIT,
  TIMELINE_MAX_LIMIT,
  timelineQuerySchema,
  encodeCursor as encodeTimelineCursor,
  decodeCursor as decodeTimelineCursor,
  type TimelinePosition,
  type TimelineRecordKind,
  type TimelineType,
} from './timeline/timeline.schema';
export { readTimeline, type TimelineRow } from './timeline/timeline.repository';
export { timelinePage, type TimelineItem, type TimelinePage } from './timeline/timeline-page';
