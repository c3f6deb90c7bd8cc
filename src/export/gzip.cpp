#include "export/gzip.h"

#include <zlib.h>

#include <vector>

#include "common/error.h"

namespace gpuscope {
namespace {

constexpr int kGzipWindowBits = 15 + 16;  // 32 KiB window, gzip header and trailer (zlib's convention)

void init_deflate(z_stream& z, int level) {
  z = z_stream{};
  if (deflateInit2(&z, level, Z_DEFLATED, kGzipWindowBits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw Error("gzip: zlib could not start");
}

}  // namespace

std::string gzip_bytes(std::string_view data, int level) {
  z_stream z;
  init_deflate(z, level);
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw Error("gzip: zlib failed to compress");
  return out;
}

// Collects what the ostream writes in `pending_` and deflates it a block at a time.
class GzipOstream::Buffer : public std::streambuf {
 public:
  Buffer(std::ostream& sink, int level) : sink_(sink), pending_(1 << 16), out_(1 << 16) {
    init_deflate(z_, level);
    setp(pending_.data(), pending_.data() + pending_.size());
  }
  ~Buffer() override { deflateEnd(&z_); }

  void finish() {
    if (finished_) return;
    deflate_pending(Z_FINISH);
    finished_ = true;
    if (!sink_.flush()) throw Error("gzip: cannot write the output");
  }

 protected:
  int_type overflow(int_type c) override {
    deflate_pending(Z_NO_FLUSH);
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override {
    deflate_pending(Z_NO_FLUSH);
    return 0;
  }

 private:
  void deflate_pending(int flush) {
    if (finished_) throw Error("gzip: write after finish");
    z_.next_in = reinterpret_cast<Bytef*>(pbase());
    z_.avail_in = static_cast<uInt>(pptr() - pbase());
    int rc;
    do {
      z_.next_out = reinterpret_cast<Bytef*>(out_.data());
      z_.avail_out = static_cast<uInt>(out_.size());
      rc = deflate(&z_, flush);
      if (rc == Z_STREAM_ERROR) throw Error("gzip: zlib failed to compress");
      sink_.write(out_.data(), static_cast<std::streamsize>(out_.size() - z_.avail_out));
    } while (z_.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    setp(pending_.data(), pending_.data() + pending_.size());
  }

  std::ostream& sink_;
  z_stream z_;
  std::vector<char> pending_, out_;
  bool finished_ = false;
};

GzipOstream::GzipOstream(std::ostream& sink, int level)
    : std::ostream(nullptr), buffer_(std::make_unique<Buffer>(sink, level)) {
  rdbuf(buffer_.get());
}

GzipOstream::~GzipOstream() {
  try {
    buffer_->finish();
  } catch (...) {
  }
}

void GzipOstream::finish() {
  flush();
  buffer_->finish();
}

}  // namespace gpuscope
