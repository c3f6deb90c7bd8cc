#include "importers/ncu_csv/csv_reader.h"

#include "common/error.h"

namespace gpuscope::ncu {

namespace {

bool starts_with_at(std::string_view text, size_t pos, std::string_view prefix) {
  return text.size() - pos >= prefix.size() && text.compare(pos, prefix.size(), prefix) == 0;
}

}  // namespace

bool CsvReader::next_line(std::string_view& line) {
  if (pos_ >= text_.size()) return false;
  size_t end = text_.find('\n', pos_);
  if (end == std::string_view::npos) end = text_.size();
  line = text_.substr(pos_, end - pos_);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  pos_ = end + 1;
  ++line_;
  return true;
}

void CsvReader::skip_tool_lines() {
  while (pos_ < text_.size()) {
    const bool blank = text_[pos_] == '\n' || starts_with_at(text_, pos_, "\r\n");
    if (!blank && !starts_with_at(text_, pos_, "==")) return;
    std::string_view line;
    next_line(line);
    if (!blank) tool_lines_.push_back(line);
  }
}

bool CsvReader::next(std::vector<std::string>& fields) {
  if (!read_record(fields)) return false;
  if (!header_.empty() && fields == header_)
    throw Error("line " + std::to_string(record_line_) +
                ": the header again (two ncu CSVs joined into one file?); give each file on its own");
  return true;
}

bool CsvReader::read_record(std::vector<std::string>& fields) {
  skip_tool_lines();
  fields.clear();
  if (pos_ >= text_.size()) return false;
  record_line_ = line_;
  std::string field;
  while (true) {
    if (pos_ < text_.size() && text_[pos_] == '"') {
      // Quoted: up to the closing quote; "" is a quote; commas and line breaks are text.
      ++pos_;
      while (true) {
        const size_t quote = text_.find('"', pos_);
        if (quote == std::string_view::npos)
          throw Error("line " + std::to_string(record_line_) +
                      ": a quoted field is not closed (the file is cut short?)");
        for (size_t i = pos_; i < quote; ++i) line_ += text_[i] == '\n';
        field.append(text_.substr(pos_, quote - pos_));
        pos_ = quote + 1;
        if (pos_ < text_.size() && text_[pos_] == '"') {
          field += '"';
          ++pos_;
          continue;
        }
        break;
      }
    }
    // Unquoted text (or stray text after a closing quote, kept as ncu never writes it).
    const size_t stop = text_.find_first_of(",\r\n", pos_);
    const size_t end = stop == std::string_view::npos ? text_.size() : stop;
    field.append(text_.substr(pos_, end - pos_));
    pos_ = end;
    fields.push_back(std::move(field));
    field.clear();
    if (pos_ >= text_.size()) return true;
    const char c = text_[pos_];
    if (c == ',') {
      ++pos_;
      continue;
    }
    // End of the record: LF or CRLF (a lone CR ends it too).
    pos_ += (c == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') ? 2 : 1;
    ++line_;
    return true;
  }
}

std::vector<std::string> split_line_lenient(std::string_view line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"') field += c;
      else if (i + 1 < line.size() && line[i + 1] == '"') field += '"', ++i;
      else quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.push_back(std::move(field));
      field.clear();
    } else {
      field += c;
    }
  }
  if (!quoted) fields.push_back(std::move(field));  // a field cut inside its quotes is dropped
  return fields;
}

}  // namespace gpuscope::ncu
