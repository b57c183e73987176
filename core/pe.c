/* core/pe.c -- status strings generated from PE_STATUS_MAP. */
#include "core/pe.h"

const char *pe_status_str(pe_status st)
{
    switch (st) {
#define PE__STATUS_CASE(name, num, text)                                                           \
    case name:                                                                                     \
        return text;
        PE_STATUS_MAP(PE__STATUS_CASE)
#undef PE__STATUS_CASE
    }
    return "unknown status";
}
