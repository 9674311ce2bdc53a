// A U-Net denoising training step (models.h UNetOptions): strided, transposed and 3x3
// convolutions with skip connections, MSE, backward by autodiff, SGD.
#include <cmath>

#include "fmt/format.h"
#include "models/graph.h"
#include "models/models.h"
#include "models/training.h"
#include "support/check.h"

namespace spmdc {
namespace {

using graph::ConvWindow;
using graph::Graph;
using graph::TensorShape;
using graph::Value;

class UNetBuilder {
 public:
  explicit UNetBuilder(const UNetOptions& o) : o_(o), t_(o.dtype) {}
  std::string Build();

 private:
  // Sharding of an image-shaped value [N, rows, cols, channels]: batch over data, rows over space.
  std::string ImageSpec() const {
    if (o_.data * o_.space == 1) return "";
    graph::Mesh mesh{{{"data", o_.data}, {"space", o_.space}}};
    auto axis = [](const char* name, int64_t size) {
      return size > 1 ? std::vector<std::string>{name} : std::vector<std::string>{};
    };
    return graph::ShardingText(mesh, {axis("data", o_.data), axis("space", o_.space), {}, {}});
  }
  std::string Replicated() const { return o_.data * o_.space == 1 ? "" : "{replicated}"; }
  // conv(h, kernel [k, k, in, out]) / sqrt(k k in) + bias, then ReLU unless `linear`. The scale
  // keeps activations of unit size under kernels of unit-size entries (as random inputs are),
  // level after level, so that the step's values stay in range at any depth.
  Value ConvLayer(Value h, int64_t k, int64_t out, const ConvWindow& window, const std::string& name,
                  bool linear = false) {
    const int64_t in = g_.shape(h).dims[3];
    Value w = g_.Param(TensorShape{t_, {k, k, in, out}}, name + "_kernel", Replicated());
    Value b = g_.Param(TensorShape{t_, {out}}, name + "_bias", Replicated());
    weights_.push_back(w);
    weights_.push_back(b);
    Value y = g_.Conv(h, w, window);
    const std::vector<int64_t> dims = g_.shape(y).dims;
    const double scale = 1.0 / std::sqrt(static_cast<double>(k * k * in));
    y = g_.Add(g_.Mul(y, g_.BroadcastScalar(scale, TensorShape{t_, dims})), g_.Broadcast(b, dims, {3}));
    if (!linear) y = g_.Max(y, g_.BroadcastScalar(0.0, TensorShape{t_, dims}));
    g_.SetName(y, name);
    return y;
  }
  Value Conv3x3(Value h, int64_t out, const std::string& name) {
    return ConvLayer(h, 3, out, ConvWindow{{}, {1, 1}, {1, 1}, {}, {}}, name);
  }
  // Nearest-neighbour 2x up-sampling: [N, r, c, C] -> [N, 2r, 2c, C] (broadcast, reshape).
  Value Resize2x(Value h) {
    const std::vector<int64_t> d = g_.shape(h).dims;
    Value b = g_.Broadcast(h, {d[0], d[1], 2, d[2], 2, d[3]}, {0, 1, 3, 5});
    Value r = g_.Reshape(b, {d[0], 2 * d[1], 2 * d[2], d[3]});
    g_.SetName(r, "resize");
    return r;
  }

  const UNetOptions& o_;
  const std::string t_;
  Graph g_;
  std::vector<Value> weights_;
};

std::string UNetBuilder::Build() {
  SPMDC_CHECK_MSG(o_.levels >= 2 && o_.batch >= 1 && o_.channels >= 1 && o_.in_channels >= 1 &&
                      o_.size % (int64_t{1} << (o_.levels - 1)) == 0,
                  "bad U-Net options");
  const std::vector<int64_t> image = {o_.batch, o_.size, o_.size, o_.in_channels};
  Value x = g_.Param(TensorShape{t_, image}, "x", ImageSpec());
  Value y = g_.Param(TensorShape{t_, image}, "y", ImageSpec());
  auto channels = [&](int64_t level) { return o_.channels << level; };
  std::vector<Value> skips;
  Value h = x;
  for (int64_t l = 0; l < o_.levels; ++l) {
    if (l > 0) h = ConvLayer(h, 2, channels(l), ConvWindow{{2, 2}, {}, {}, {}, {}}, fmt::format("down{}", l));
    h = Conv3x3(h, channels(l), fmt::format("enc{}", l));
    skips.push_back(h);
  }
  for (int64_t l = o_.levels - 2; l >= 0; --l) {
    if ((o_.levels - 2 - l) % 2 == 0) {
      // Transposed convolution: input dilated by 2, a 2x2 window padded by 1 on each side.
      h = ConvLayer(h, 2, channels(l), ConvWindow{{}, {1, 1}, {1, 1}, {2, 2}, {}}, fmt::format("up{}", l));
    } else {
      h = Conv3x3(Resize2x(h), channels(l), fmt::format("up{}", l));
    }
    h = g_.Concatenate({h, skips[l]}, 3);
    h = Conv3x3(h, channels(l), fmt::format("dec{}", l));
  }
  h = ConvLayer(h, 1, o_.in_channels, ConvWindow{}, "head", /*linear=*/true);
  Value diff = g_.Sub(h, y);
  const double elements = static_cast<double>(o_.batch * o_.size * o_.size * o_.in_channels);
  Value loss = g_.Mul(g_.ReduceSum(g_.Mul(diff, diff), {0, 1, 2, 3}), g_.Constant(1.0 / elements, t_));
  ParallelismOptions p;
  p.data = o_.data;
  p.model = o_.space;
  return models_internal::FinishTrainingStep(g_, loss, weights_, o_.learning_rate, o_.output_gradients,
                                             "unet_train_step", p);
}

}  // namespace

std::string BuildUNetTrainingStep(const UNetOptions& options) { return UNetBuilder(options).Build(); }

}  // namespace spmdc
