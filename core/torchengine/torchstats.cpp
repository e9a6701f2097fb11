// SPDX-License-Identifier: GPL-3.0-or-later
// LibTorch first: Qt's `slots` macro breaks its headers.
#include <ATen/ATen.h>
#include <torch/csrc/api/include/torch/version.h>

#include "torchstats.h"

#include "torchtensor.h"

#include <array>
#include <cmath>
#include <limits>

namespace dimscope::torchengine {

namespace {

// float8 e4m3fn: 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinities,
// S.1111.111 is NaN.
float decodeE4M3(uint8_t b)
{
    const int sign = b >> 7, exp = (b >> 3) & 0xF, mant = b & 0x7;
    float v;
    if (exp == 0xF && mant == 0x7)
        v = std::numeric_limits<float>::quiet_NaN();
    else if (exp == 0)
        v = std::ldexp(float(mant) / 8.0f, -6);
    else
        v = std::ldexp(1.0f + float(mant) / 8.0f, exp - 7);
    return sign ? -v : v;
}

// float8 e5m2 is the upper byte of an IEEE float16.
float decodeE5M2(uint8_t b)
{
    const int sign = b >> 7, exp = (b >> 2) & 0x1F, mant = b & 0x3;
    float v;
    if (exp == 0x1F)
        v = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
    else if (exp == 0)
        v = std::ldexp(float(mant) / 4.0f, -14);
    else
        v = std::ldexp(1.0f + float(mant) / 4.0f, exp - 15);
    return sign ? -v : v;
}

at::Tensor lookupTable(DType t)
{
    std::array<float, 256> lut;
    for (int i = 0; i < 256; ++i)
        lut[size_t(i)] = t == DType::F8_E4M3 ? decodeE4M3(uint8_t(i)) : decodeE5M2(uint8_t(i));
    return at::tensor(at::ArrayRef<float>(lut.data(), lut.size()), at::kFloat);
}

// Thrown by chunkAsDouble when the bytes cannot be read (the file shrank); caught below.
struct ReadFailure {
    QString message;
};

// A flat double tensor of elements [begin, end) of the tensor, whatever its dtype.
at::Tensor chunkAsDouble(const TensorBytes &tensor, int64_t begin, int64_t end, const at::Tensor &lut)
{
    const int64_t n = end - begin;
    const int size = tensor.elementSize;
    // The chunk is copied into a buffer of its own by the caller's reader (core reads
    // it from the file with pread, not from the mapping). The copy is bounded (one
    // chunk) and small next to the conversion to double.
    at::Tensor bytes = at::empty({n * size}, at::kByte);
    QString why;
    if (!tensor.read || !tensor.read(begin * size, n * size, bytes.data_ptr(), &why))
        throw ReadFailure{why.isEmpty() ? QStringLiteral("the tensor's bytes cannot be read") : why};
    auto raw = [&](at::ScalarType st) { return bytes.view(st); };
    switch (tensor.dtype) {
    case DType::U16: return raw(at::kShort).to(at::kInt).bitwise_and(0xFFFF).to(at::kDouble);
    case DType::U32: return raw(at::kInt).to(at::kLong).bitwise_and(int64_t(0xFFFFFFFF)).to(at::kDouble);
    case DType::U64: {
        at::Tensor d = raw(at::kLong).to(at::kDouble);
        return at::where(d < 0, d + 18446744073709551616.0, d); // values >= 2^63 read as negative
    }
    case DType::F8_E4M3:
    case DType::F8_E5M2:
        return lut.index_select(0, raw(at::kByte).to(at::kLong)).to(at::kDouble);
    default:
        return raw(*torchScalarType(tensor.dtype)).to(at::kDouble);
    }
}

} // namespace

QString libtorchVersion()
{
    return QStringLiteral("%1.%2.%3").arg(TORCH_VERSION_MAJOR).arg(TORCH_VERSION_MINOR).arg(TORCH_VERSION_PATCH);
}

TensorStats statistics(const TensorBytes &tensor, const TensorStatsOptions &options)
{
    TensorStats s;
    s.numel = tensor.numel;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    s.min = s.max = s.mean = s.std = nan;
    try {
        const at::Tensor lut = (tensor.dtype == DType::F8_E4M3 || tensor.dtype == DType::F8_E5M2) ? lookupTable(tensor.dtype) : at::Tensor();
        double mean = 0, m2 = 0; // Chan et al.'s parallel merge of per-chunk mean and M2
        double lo = std::numeric_limits<double>::infinity(), hi = -lo;
        const int64_t chunk = std::max<int64_t>(1, options.chunkElements);
        for (int64_t begin = 0; begin < s.numel; begin += chunk) {
            if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
                s.cancelled = true;
                s.error = QStringLiteral("cancelled");
                return s;
            }
            const int64_t end = std::min<int64_t>(s.numel, begin + chunk);
            const at::Tensor d = chunkAsDouble(tensor, begin, end, lut);
            const at::Tensor finiteMask = at::isfinite(d);
            const int64_t nanCount = at::isnan(d).sum().item<int64_t>();
            const int64_t finite = finiteMask.sum().item<int64_t>();
            s.nanCount += nanCount;
            s.infCount += (end - begin) - finite - nanCount;
            if (finite == 0)
                continue;
            const at::Tensor f = d.masked_select(finiteMask);
            lo = std::min(lo, f.min().item<double>());
            hi = std::max(hi, f.max().item<double>());
            const double cMean = f.mean().item<double>();
            const double cM2 = (f - cMean).pow(2).sum().item<double>();
            const double n = double(s.finiteCount), m = double(finite);
            const double delta = cMean - mean;
            mean += delta * m / (n + m);
            m2 += cM2 + delta * delta * n * m / (n + m);
            s.finiteCount += finite;
        }
        if (s.finiteCount > 0) {
            s.min = lo;
            s.max = hi;
            s.mean = mean;
            s.std = std::sqrt(m2 / double(s.finiteCount));
        }
        s.ok = true;
    } catch (const ReadFailure &f) {
        s.error = f.message;
    } catch (const std::exception &e) {
        s.error = QStringLiteral("LibTorch: %1").arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0));
    }
    return s;
}

} // namespace dimscope::torchengine
