// wire/numfmt.cc -- see numfmt.h. The only C++ in posenc: a C entry point into Dragonbox.
#include "wire/numfmt.h"

#include <cmath>

#include <dragonbox/dragonbox.h>

extern "C" int wire_numfmt_decimal(double x, uint64_t *significand, int *exponent)
{
    auto r = jkj::dragonbox::to_decimal(x);
    *significand = r.significand;
    *exponent = r.exponent;
    return r.is_negative ? 1 : 0;
}

extern "C" void wire_numfmt_decimals(const double *x, size_t n, uint64_t *significand,
                                     int *exponent)
{
    for (size_t i = 0; i < n; i++) {
        double v = x[i];
        if (v == 0.0 || !std::isfinite(v)) {
            significand[i] = 0;
            exponent[i] = 0;
            continue;
        }
        auto r = jkj::dragonbox::to_decimal(v);
        significand[i] = r.significand;
        exponent[i] = r.exponent;
    }
}
