// SPDX-License-Identifier: Apache-2.0
#include "frontends/http/responder.h"

#include "frontends/http/session.h"

namespace inferd::frontends::http {

void Responder::Send(HttpReply reply) const {
  // std::function needs a copyable callable; the reply moves in once.
  auto shared = std::make_shared<HttpReply>(std::move(reply));
  session_->Deliver([shared] { return std::move(*shared); });
}

void Responder::SendLater(std::function<HttpReply()> make) const {
  session_->Deliver(std::move(make));
}

void Responder::WatchDisconnect(std::shared_ptr<core::CancellationToken> token) const {
  session_->WatchDisconnect(std::move(token));
}

void Responder::OpenStream(HttpReply head) const { session_->OpenStream(std::move(head)); }

void Responder::StreamData(std::function<std::string()> make) const {
  session_->StreamData(std::move(make));
}

void Responder::EndStream() const { session_->EndStream(); }

}  // namespace inferd::frontends::http
