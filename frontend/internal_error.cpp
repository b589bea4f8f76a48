#include "frontend/internal_error.h"

#include <sstream>

namespace shardc {

void internal_error(const char* file, int line, const std::string& message) {
  std::ostringstream text;
  text << "internal compiler error: " << message << " (at " << file << ':' << line << ')';
  throw InternalError(text.str());
}

}  // namespace shardc
