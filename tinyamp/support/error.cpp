#include "tinyamp/support/error.h"

namespace tinyamp {

const char* error_kind_name(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::shape: return "shape";
    case ErrorKind::dtype: return "dtype";
    case ErrorKind::index: return "index";
    case ErrorKind::device: return "device";
    case ErrorKind::value: return "value";
    case ErrorKind::state: return "state";
    case ErrorKind::io: return "io";
    }
    return "unknown";
}

Error::Error(ErrorKind kind, const std::string& message)
    : std::runtime_error(std::string(error_kind_name(kind)) + " error: " + message),
      kind_(kind),
      message_(message)
{
}

void fail_out_of_memory(const char* op)
{
    throw Error(ErrorKind::value, std::string("out of CPU memory while running ") + op +
                                      ": a buffer it needs did not fit in memory; use smaller tensors or batches");
}

}  // namespace tinyamp
