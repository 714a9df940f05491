/** SDK schemas the tests use, typed through their `@ts-types` directive. */
// @ts-types="@modelcontextprotocol/sdk/types"
export {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
