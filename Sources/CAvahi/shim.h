#include <avahi-client/client.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#include <dlfcn.h>

// Avahi (DNS-SD over mDNS, through avahi-daemon on D-Bus) is opened when the daemon advertises
// its IPP printers, not linked: a one-shot `receipt render` never loads it. `receipt_avahi_NAME()`
// returns the library's NAME with the type its header declares (checked through __typeof__), or
// NULL when the library cannot be opened. Swift calls them through `LibAvahi`
// (ReceiptPrint/IPP/DNSSDAdvertiser.swift).
static inline void *receipt_avahi_common(void) { return dlopen("libavahi-common.so.3", RTLD_NOW | RTLD_GLOBAL); }
static inline void *receipt_avahi_client(void) {
  if (!receipt_avahi_common()) return 0;
  return dlopen("libavahi-client.so.3", RTLD_NOW | RTLD_LOCAL);
}

static inline const char *receipt_avahi_library_error(void) {
  if (receipt_avahi_client()) return 0;
  return dlerror();
}

#define RECEIPT_AVAHI_FUNCTION(library, name)                                   \
  static inline __typeof__(name) *receipt_##name(void) {                        \
    void *handle = receipt_avahi_##library();                                   \
    if (!handle) return 0;                                                      \
    return (__typeof__(name) *)dlsym(handle, #name);                            \
  }

RECEIPT_AVAHI_FUNCTION(common, avahi_alternative_service_name)
RECEIPT_AVAHI_FUNCTION(common, avahi_free)
RECEIPT_AVAHI_FUNCTION(common, avahi_strerror)
RECEIPT_AVAHI_FUNCTION(common, avahi_string_list_add)
RECEIPT_AVAHI_FUNCTION(common, avahi_string_list_free)
RECEIPT_AVAHI_FUNCTION(common, avahi_threaded_poll_free)
RECEIPT_AVAHI_FUNCTION(common, avahi_threaded_poll_get)
RECEIPT_AVAHI_FUNCTION(common, avahi_threaded_poll_lock)
RECEIPT_AVAHI_FUNCTION(common, avahi_threaded_poll_new)
RECEIPT_AVAHI_FUNCTION(common, avahi_threaded_poll_start)
RECEIPT_AVAHI_FUNCTION(common, avahi_threaded_poll_stop)
RECEIPT_AVAHI_FUNCTION(common, avahi_threaded_poll_unlock)
RECEIPT_AVAHI_FUNCTION(client, avahi_client_errno)
RECEIPT_AVAHI_FUNCTION(client, avahi_client_free)
RECEIPT_AVAHI_FUNCTION(client, avahi_client_new)
RECEIPT_AVAHI_FUNCTION(client, avahi_entry_group_add_service_strlst)
RECEIPT_AVAHI_FUNCTION(client, avahi_entry_group_add_service_subtype)
RECEIPT_AVAHI_FUNCTION(client, avahi_entry_group_commit)
RECEIPT_AVAHI_FUNCTION(client, avahi_entry_group_free)
RECEIPT_AVAHI_FUNCTION(client, avahi_entry_group_new)
RECEIPT_AVAHI_FUNCTION(client, avahi_entry_group_reset)
