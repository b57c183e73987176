// api/numfmt.cc -- see numfmt.h. The only C++ in posenc: a C entry point into Dragonbox.
#include "numfmt.h"

#include <dragonbox/dragonbox.h>

extern "C" int api_numfmt_decimal(double x, uint64_t *significand, int *exponent)
{
    auto r = jkj::dragonbox::to_decimal(x);
    *significand = r.significand;
    *exponent = r.exponent;
    return r.is_negative ? 1 : 0;
}
