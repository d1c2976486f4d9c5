//! The bridge to espalier-model's [`Llama`]: the weights placed on the chosen burn
//! device, and one KV cache rolled back and extended as the decode loop asks.

use burn::tensor::Device;
use espalier_model::{DeviceLogits, Gguf, KvCache, Llama, WeightFormat};

/// The model on its device, with the cache of the current generation.
pub struct Model {
    llama: Llama,
    cache: KvCache,
    /// The agreement with the CPU path, when the page asked for it (`?check=cpu`).
    agreement: Option<String>,
}

impl Model {
    /// Places the GGUF's weights on `device` in the model crate's format for it (on
    /// WebGPU the file's quantized blocks, multiplied by the crate's GPU kernel); on a
    /// GPU, compares its logits with the CPU path's when the page asks.
    ///
    /// With `?check=cpu` the page (the browser test) also gets the GPU allocator's
    /// usage after that comparison, and `?weights=<format>` loads another weight
    /// format (`burn-f32`: the f32 copies, for before/after figures).
    pub async fn load(gguf: &Gguf, device: &Device) -> Result<Model, String> {
        let llama = match crate::page_params::get("weights").map(|w| w.parse::<WeightFormat>()) {
            Some(format) => Llama::load_with(gguf, device, format?),
            None => Llama::load(gguf, device),
        }
        .map_err(|e| e.to_string())?;
        let cache = llama.new_cache();
        let on_gpu =
            matches!(llama.weight_format(), WeightFormat::BurnF32 | WeightFormat::GpuBlocks);
        let agreement = match on_gpu && crate::gpu_agreement::requested() {
            true => {
                let line = crate::gpu_agreement::measure(gguf, &llama)
                    .await
                    .map_or_else(|e| format!("CPU agreement failed: {e}"), |a| a.line());
                let mb = |b: u64| b as f64 / 1e6;
                let memory = device.memory_pool_usage().map_or_else(String::new, |u| {
                    format!(
                        "; GPU allocator after it: {:.1} MB in use, {:.1} MB reserved",
                        mb(u.bytes_in_use),
                        mb(u.bytes_reserved)
                    )
                });
                Some(line + &memory)
            }
            false => None,
        };
        Ok(Model { llama, cache, agreement })
    }

    /// Rolls the KV cache back to `keep` positions, runs `tokens` after them, and
    /// returns the last token's logits.
    pub async fn forward(&mut self, keep: usize, tokens: &[u32]) -> Result<Vec<f32>, String> {
        self.roll_back(keep)?;
        self.llama.forward_async(tokens, &mut self.cache).await.map_err(|e| e.to_string())
    }

    /// [`Model::forward`] then the greedy id (the highest finite logit, ties to the
    /// lowest id; `None` when none is finite) chosen where the logits are: on WebGPU
    /// the argmax runs on the device and 4 bytes come back instead of the vector.
    pub async fn greedy(&mut self, keep: usize, tokens: &[u32]) -> Result<Option<u32>, String> {
        self.roll_back(keep)?;
        let mut logits =
            self.llama.forward_logits(tokens, &mut self.cache).map_err(|e| e.to_string())?;
        let n = logits.len();
        logits.argmax_async(n, None, &[]).await.map_err(|e| e.to_string())
    }

    /// Rolls the KV cache back to `keep` positions and runs `tokens` after them,
    /// leaving the last one's logits on the device with the pass recorded (on WebGPU
    /// nothing is read back yet: [`espalier_engine::prefetched_logits`]).
    pub fn forward_device(&mut self, keep: usize, tokens: &[u32]) -> Result<DeviceLogits, String> {
        self.roll_back(keep)?;
        self.llama.forward_logits(tokens, &mut self.cache).map_err(|e| e.to_string())
    }

    /// Rolls the KV cache back to `keep` positions.
    fn roll_back(&mut self, keep: usize) -> Result<(), String> {
        self.cache.truncate(keep);
        if self.cache.len() != keep {
            return Err(format!(
                "the decode loop asked to keep {keep} cached positions but the cache holds {}",
                self.cache.len()
            ));
        }
        Ok(())
    }

    /// One line about the model for the page.
    pub fn describe(&self) -> String {
        let c = self.llama.config();
        let mut line = format!(
            "{} blocks, hidden {}, vocab {}, weights {}",
            c.layers,
            c.hidden,
            c.vocab_size,
            self.llama.weight_format()
        );
        if matches!(self.llama.weight_format(), WeightFormat::BurnF32 | WeightFormat::GpuBlocks) {
            line +=
                &format!(" ({:.1} MB on the GPU)", self.llama.device_weight_bytes() as f64 / 1e6);
        }
        if let Some(agreement) = &self.agreement {
            line += &format!("; {agreement}");
        }
        line
    }
}
